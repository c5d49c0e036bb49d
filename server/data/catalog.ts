/** Read-only access to catalog.db (companies, domains, people, intent, engagement) built by `data build`. */
import Database from 'better-sqlite3';
import type { CompanyRow, EngagementRow, IntentRow, PersonRow } from '../../data/sources/schema.ts';
import { linkedinKey, normaliseDomain } from '../../data/catalog/keys.ts';

export interface NetworkSample { ip: string; kind: string; company_id: string; network: string; }

export interface Catalog {
  company(id: string): CompanyRow | null;
  companiesByDomain(domain: string): CompanyRow[];
  personById(id: string): PersonRow | null;
  personByEmail(email: string): PersonRow | null;
  personByLinkedin(url: string): PersonRow | null;
  /** People of these companies, ordered by people_id (text order), streamed (People Search). */
  peopleOfCompanies(companyIds: readonly string[]): IterableIterator<PersonRow>;
  intent(companyId: string): IntentRow[];
  engagement(peopleId: string): EngagementRow[];
  samples(): NetworkSample[];
  close(): void;
}

export function openCatalog(file: string): Catalog {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const q = {
    company: db.prepare('SELECT * FROM companies WHERE company_id = ?'),
    byDomain: db.prepare('SELECT c.* FROM domains d JOIN companies c USING (company_id) WHERE d.domain = ? ORDER BY d.is_primary DESC, c.company_id'),
    personById: db.prepare('SELECT * FROM people WHERE people_id = ?'),
    personByEmail: db.prepare('SELECT * FROM people WHERE email_lc = ? ORDER BY people_id LIMIT 1'),
    personByLinkedin: db.prepare('SELECT * FROM people WHERE linkedin_key = ? ORDER BY people_id LIMIT 1'),
    peopleOfCompanies: db.prepare('SELECT * FROM people WHERE company_id IN (SELECT value FROM json_each(?)) ORDER BY people_id'),
    intent: db.prepare('SELECT company_id, topic, strength, observed_at FROM intent WHERE company_id = ?'),
    engagement: db.prepare('SELECT people_id, activity, count, observed_at FROM engagement WHERE people_id = ?'),
    samples: db.prepare('SELECT * FROM network_samples ORDER BY rowid'),
  };
  // The identification route reads the company and its intent signals on every Match: kept per snapshot
  // (the file is read-only), frozen because they are shared, bounded so memory stays flat.
  const companies = new BoundedCache<CompanyRow | null>();
  const intents = new BoundedCache<IntentRow[]>();
  return {
    company: (id) => {
      const hit = companies.get(id);
      return hit !== undefined ? hit : companies.set(id, freeze((q.company.get(id) as CompanyRow | undefined) ?? null));
    },
    companiesByDomain: (domain) => q.byDomain.all(normaliseDomain(domain)) as CompanyRow[],
    personById: (id) => (q.personById.get(id) as PersonRow | undefined) ?? null,
    personByEmail: (email) => (q.personByEmail.get(email.trim().toLowerCase()) as PersonRow | undefined) ?? null,
    personByLinkedin: (url) => (q.personByLinkedin.get(linkedinKey(url)) as PersonRow | undefined) ?? null,
    peopleOfCompanies: (ids) => q.peopleOfCompanies.iterate(JSON.stringify(ids)) as IterableIterator<PersonRow>,
    intent: (id) => intents.get(id) ?? intents.set(id, freeze((q.intent.all(id) as IntentRow[]).map(freeze))),
    engagement: (id) => q.engagement.all(id) as EngagementRow[],
    samples: () => q.samples.all() as NetworkSample[],
    close: () => db.close(),
  };
}

/** Entries kept per cache; past it the cache starts over (a map's clear is cheaper than LRU bookkeeping). */
const CACHE_LIMIT = 50_000;

class BoundedCache<V> {
  private readonly map = new Map<string, V>();
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): V {
    if (this.map.size >= CACHE_LIMIT) this.map.clear();
    this.map.set(key, value);
    return value;
  }
}

function freeze<T>(value: T): T {
  return value === null ? value : Object.freeze(value);
}
