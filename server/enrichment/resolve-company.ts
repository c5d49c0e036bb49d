/**
 * Pure decision: which company (and which known person) a lead's email / domain identifies.
 *
 *   1. A malformed email → `invalid-email` (spec: 404, blank data), whatever else was sent.
 *   2. The email of a known person whose company is in the catalog → that company.
 *   3. The email's domain, unless it is a free-mail provider (gmail.com identifies no company).
 *   4. The fallback domain (v3 `domain`, else `website`), when the email is blank or identified nothing.
 *   5. Otherwise `not-found` (the known person, if any, is kept: Lead Scoring still scores the contact).
 *
 * A domain may map to several companies (domains.csv). `country`, `company` and `industry` then choose
 * among them — the candidate matching the most hints wins, ties go to the catalog order (the company
 * whose primary domain it is first, then by id). Hints never identify a company on their own: they only
 * rank the candidates of a domain, and a hint matching no candidate changes nothing.
 */
import type { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import { isFreeMailDomain, parseDomain, parseEmail } from '../net/email.ts';
import { textKey as fold } from './text-key.ts';

export interface CompanyLookups {
  personByEmail(email: string): PersonRow | null;
  company(id: string): CompanyRow | null;
  companiesByDomain(domain: string): readonly CompanyRow[];
}

export interface LeadQuery {
  /** Trimmed; "" when not sent. */
  email: string;
  /** Fallback domain or website; "" when not sent. */
  domain: string;
  hints: DisambiguationHints;
}

export interface DisambiguationHints {
  country?: string;
  company?: string;
  industry?: string;
}

export type CompanyResolution =
  | { outcome: 'invalid-email' }
  | { outcome: 'found'; company: CompanyRow; person: PersonRow | null; via: 'person' | 'email-domain' | 'domain' }
  | { outcome: 'not-found'; person: PersonRow | null };

export function resolveCompany(query: LeadQuery, lookups: CompanyLookups): CompanyResolution {
  let person: PersonRow | null = null;
  if (query.email !== '') {
    const email = parseEmail(query.email);
    if (!email) return { outcome: 'invalid-email' };
    person = lookups.personByEmail(email.address);
    const own = person?.company_id ? lookups.company(person.company_id) : null;
    if (own) return { outcome: 'found', company: own, person, via: 'person' };
    if (!isFreeMailDomain(email.domain)) {
      const company = pickCompany(lookups.companiesByDomain(email.domain), query.hints);
      if (company) return { outcome: 'found', company, person, via: 'email-domain' };
    }
  }
  const domain = query.domain === '' ? null : parseDomain(query.domain);
  if (domain && !isFreeMailDomain(domain)) {
    const company = pickCompany(lookups.companiesByDomain(domain), query.hints);
    if (company) return { outcome: 'found', company, person, via: 'domain' };
  }
  return { outcome: 'not-found', person };
}

/** The candidate matching the most hints; ties keep the given order. Null for no candidates. */
export function pickCompany(candidates: readonly CompanyRow[], hints: DisambiguationHints): CompanyRow | null {
  let best: CompanyRow | null = null;
  let bestScore = -1;
  for (const c of candidates) {
    const score = hintMatches(c, hints);
    if (score > bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}

/** How many of the hints a company matches (0–3). */
export function hintMatches(company: CompanyRow, hints: DisambiguationHints): number {
  let n = 0;
  const country = fold(hints.country);
  if (country && [company.country, company.country_iso_code].some((v) => fold(v) === country)) n++;
  if (hints.company && nameMatches(company.name, hints.company)) n++;
  const industry = fold(hints.industry);
  if (industry && [company.industry, company.subindustry].some((v) => fold(v) === industry)) n++;
  return n;
}

/** Legal-form words that do not tell two companies apart. */
const LEGAL_FORMS = new Set([
  'inc',
  'incorporated',
  'llc',
  'ltd',
  'limited',
  'gmbh',
  'ag',
  'sa',
  'sas',
  'bv',
  'nv',
  'plc',
  'corp',
  'corporation',
  'co',
  'company',
  'the',
]);

/** The hint's words (legal forms aside) all appear in the name, e.g. "Northwind Europe" ~ "Northwind Analytics Europe Ltd". */
function nameMatches(name: string, hint: string): boolean {
  const words = (s: string) =>
    fold(s)
      .split(' ')
      .filter((w) => w !== '' && !LEGAL_FORMS.has(w));
  const wanted = words(hint);
  if (wanted.length === 0) return false;
  const have = new Set(words(name));
  return wanted.every((w) => have.has(w));
}
