/** Read-only access to catalog.db (companies, domains, people, intent, engagement, topics) built by `data build`. */
import Database from 'better-sqlite3';
import type { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import { linkedinKey, normaliseDomain } from '../../data/catalog/keys.ts';
import { COMPANY_COLUMNS, type EngagementRow, type IntentRow } from '../../data/sources/schema.ts';
import { BoundedCache, boundedMemo } from '../cache/bounded-cache.ts';
import { type CatalogTopics, openCatalogTopics } from './catalog-topics.ts';

export interface NetworkSample {
  ip: string;
  kind: string;
  company_id: string;
  network: string;
}

/** One intent signal as the segment index pages through them; `seq` orders one company's signals (SQLite's rowid). */
export interface IntentPageRow extends IntentRow {
  seq: number;
}

export interface Catalog {
  company(id: string): CompanyRow | null;
  companiesByDomain(domain: string): readonly CompanyRow[];
  personById(id: string): PersonRow | null;
  personByEmail(email: string): PersonRow | null;
  personByLinkedin(url: string): PersonRow | null;
  /** People of these companies, ordered by people_id (text order), streamed (People Search). */
  peopleOfCompanies(companyIds: readonly string[]): IterableIterator<PersonRow>;
  intent(companyId: string): IntentRow[];
  /**
   * A page of every company's intent signals in (company_id, seq) order after `after` (null for the first
   * page): the segment index scores the whole catalog from these (server/segments/intent-index.ts).
   */
  intentSignals(after: { company_id: string; seq: number } | null, limit: number): IntentPageRow[];
  engagement(peopleId: string): readonly EngagementRow[];
  samples(): NetworkSample[];
  /**
   * A page of companies in company_id (text) order after `after` ('' for the first), as raw rows of the
   * given columns: the segment membership index is built from these (server/segments/membership.ts).
   */
  companyColumns(columns: readonly (keyof CompanyRow)[], after: string, limit: number): string[][];
  /**
   * Companies whose id is `text`, whose domain starts with it, or whose name starts with it (ignoring ASCII
   * case), in that order, at most `limit`: the account page's search box. Index range scans (the domains
   * key; `companies_name`, built by `data build` — a catalog built before it is scanned instead).
   */
  searchCompanies(text: string, limit: number): CompanyRow[];
  /** Third-party topic surge: each account's weekly scores per topic, the topic names (./catalog-topics.ts). */
  topics: CatalogTopics;
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
    // The intent_company index holds (company_id, rowid): one range scan per page.
    intentPage: db.prepare(
      'SELECT rowid AS seq, company_id, topic, strength, observed_at FROM intent WHERE (company_id, rowid) > (?, ?) ORDER BY company_id, rowid LIMIT ?',
    ),
    engagement: db.prepare('SELECT people_id, activity, count, observed_at FROM engagement WHERE people_id = ?'),
    samples: db.prepare('SELECT * FROM network_samples ORDER BY rowid'),
    domainPrefix: db.prepare('SELECT DISTINCT company_id FROM domains WHERE domain >= ? AND domain < ? ORDER BY domain, company_id LIMIT ?'),
    namePrefix: db.prepare(
      'SELECT * FROM companies WHERE name >= ? COLLATE NOCASE AND name < ? COLLATE NOCASE ORDER BY name COLLATE NOCASE, company_id LIMIT ?',
    ),
  };
  // The identification route reads the company and its intent signals on every Match: kept per snapshot
  // (the file is read-only), frozen because they are shared, bounded so memory stays flat.
  const companies = new BoundedCache<string, CompanyRow | null>(CACHE_LIMIT);
  const intent = boundedMemo((id: string) => freeze((q.intent.all(id) as IntentRow[]).map(freeze)), CACHE_LIMIT);
  // The enrichment routes read a lead's person, its email domain's companies and the person's engagement:
  // each a SQLite statement of 8–15 µs CPU (point queries over a catalog larger than SQLite's page cache),
  // ~35 µs of a combined request together. Leads repeat (a CRM re-enriches the same records, and many
  // leads share a company domain), so they are kept the same way; a repeat costs one Map lookup. These
  // caches are smaller (rows are ~1 KB), and a domain's companies share their rows with `companies`.
  const domains = new BoundedCache<string, readonly CompanyRow[]>(LEAD_CACHE_LIMIT);
  const personByEmail = boundedMemo((key: string) => freeze((q.personByEmail.get(key) as PersonRow | undefined) ?? null), LEAD_CACHE_LIMIT);
  const engagement = boundedMemo((id: string): readonly EngagementRow[] => freeze((q.engagement.all(id) as EngagementRow[]).map(freeze)), LEAD_CACHE_LIMIT);
  const columnPages = new Map<string, Database.Statement>();
  return {
    company: (id) => {
      const hit = companies.get(id);
      return hit !== undefined ? hit : companies.set(id, freeze((q.company.get(id) as CompanyRow | undefined) ?? null));
    },
    companiesByDomain: (domain) => {
      const key = normaliseDomain(domain);
      return (
        domains.get(key) ??
        domains.set(
          key,
          freeze((q.byDomain.all(key) as CompanyRow[]).map((c) => companies.get(c.company_id) ?? (companies.set(c.company_id, freeze(c)) as CompanyRow))),
        )
      );
    },
    personById: (id) => (q.personById.get(id) as PersonRow | undefined) ?? null,
    personByEmail: (email) => personByEmail(email.trim().toLowerCase()),
    personByLinkedin: (url) => (q.personByLinkedin.get(linkedinKey(url)) as PersonRow | undefined) ?? null,
    peopleOfCompanies: (ids) => q.peopleOfCompanies.iterate(JSON.stringify(ids)) as IterableIterator<PersonRow>,
    intent,
    intentSignals: (after, limit) => q.intentPage.all(after?.company_id ?? '', after?.seq ?? -1, limit) as IntentPageRow[],
    engagement,
    samples: () => q.samples.all() as NetworkSample[],
    companyColumns: (columns, after, limit) => {
      const key = columns.join(',');
      let stmt = columnPages.get(key);
      if (!stmt) {
        for (const c of columns) if (!COMPANY_COLUMNS.includes(c)) throw new Error(`not a company column: ${c}`);
        stmt = db.prepare(`SELECT ${key} FROM companies WHERE company_id > ? ORDER BY company_id LIMIT ?`).raw(true);
        columnPages.set(key, stmt);
      }
      return stmt.all(after, limit) as string[][];
    },
    searchCompanies(text, limit) {
      const t = text.trim();
      if (t === '' || limit <= 0) return [];
      const found = new Map<string, CompanyRow>();
      const add = (row: CompanyRow | null | undefined) => {
        if (row && found.size < limit && !found.has(row.company_id)) found.set(row.company_id, row);
      };
      // Past every character a prefix can continue with (U+10FFFF sorts last in UTF-8).
      const end = (s: string) => `${s}\u{10FFFF}`;
      add(q.company.get(t) as CompanyRow | undefined);
      const domain = normaliseDomain(t);
      if (domain) {
        for (const id of q.domainPrefix.pluck().all(domain, end(domain), limit) as string[]) add(q.company.get(id) as CompanyRow | undefined);
      }
      for (const row of q.namePrefix.all(t, end(t), limit) as CompanyRow[]) add(row);
      return [...found.values()];
    },
    topics: openCatalogTopics(db),
    close: () => db.close(),
  };
}

/** Entries kept per cache (server/cache/bounded-cache.ts: past it the cache starts over). */
const CACHE_LIMIT = 50_000;
/** Entries kept per lead cache (person, domain, engagement; rows of ~1 KB: ≤ ~10 MB each). */
const LEAD_CACHE_LIMIT = 10_000;

function freeze<T>(value: T): T {
  return value === null ? value : Object.freeze(value);
}
