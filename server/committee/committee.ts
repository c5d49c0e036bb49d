/**
 * Pure decisions of the account page's People section: whose people make an account's buying committee,
 * how they are grouped and ordered, what is left out of a big one, the CSV, and who may reveal.
 *
 * - The people: those People Search answers for `domain=<the account's domain>` (every catalog company
 *   at that domain, domains.csv included), or the account's own when it has no domain.
 * - Each is a People Search profile (has_email, has_phone, has_mobile; never the values), grouped by
 *   function (titleFunction) × seniority (titleLevel) as the title classifier reads their title. Groups
 *   follow the vocabulary's order (core/vocabulary.ts: Executive first; levels C-Level … Staff), a title
 *   the classifier cannot read last; within a cell, people_id order (as People Search pages).
 * - At most COMMITTEE_MAX_PEOPLE people are answered, the most senior first; at most COMMITTEE_SCAN_LIMIT are
 *   read, so a domain of a licensed dataset with tens of thousands of people cannot hold the event loop.
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import type { ApiGroup } from '../../core/customer-records.ts';
import { GROUP_PACKAGES, isEntitled } from '../../core/entitlements.ts';
import { TITLE_FUNCTIONS, TITLE_LEVELS } from '../../core/vocabulary.ts';
import { csvText } from '../http/csv.ts';
import { profileOf } from '../people/search.ts';
import type { TitleClassification } from '../scoring/model.ts';
import type { CommitteeCell, CommitteeGroup, CommitteePerson } from './schema.ts';

/** People answered at most (the committee's most senior). */
export const COMMITTEE_MAX_PEOPLE = 500;
/**
 * People read at most of one domain (in people_id order). Reading, classifying and ordering 5,000 takes
 * 130–290 ms on this 2-core machine under load (20,000: 270–1,100 ms), all on the event loop: bounded so one
 * account of a big licensed dataset cannot stall the node.
 */
export const COMMITTEE_SCAN_LIMIT = 5_000;

/** The companies whose people make the account's committee: the account first, then the others at its domain. */
export function committeeCompanies(company: CompanyRow, byDomain: (domain: string) => readonly CompanyRow[]): CompanyRow[] {
  const atDomain = company.domain.trim() === '' ? [] : byDomain(company.domain);
  return [company, ...atDomain.filter((c) => c.company_id !== company.company_id)];
}

const LEVEL_RANK: ReadonlyMap<string, number> = new Map(TITLE_LEVELS.map((l, i) => [l, i]));
const FUNCTION_RANK: ReadonlyMap<string, number> = new Map(TITLE_FUNCTIONS.map((f, i) => [f, i]));

/** A vocabulary word's place; one the vocabulary lacks after those, none (null) last. */
const rankOf = (ranks: ReadonlyMap<string, number>, key: string | null): number => (key === null ? ranks.size + 1 : (ranks.get(key) ?? ranks.size));

const bySeniority = (a: CommitteePerson, b: CommitteePerson): number =>
  rankOf(LEVEL_RANK, a.titleLevel) - rankOf(LEVEL_RANK, b.titleLevel) ||
  rankOf(FUNCTION_RANK, a.titleFunction) - rankOf(FUNCTION_RANK, b.titleFunction) ||
  (a.people_id < b.people_id ? -1 : a.people_id > b.people_id ? 1 : 0);

export interface Committee {
  total: number;
  shown: number;
  truncated: boolean;
  groups: CommitteeGroup[];
}

/** The committee of these people (already those of the committee's companies). */
export function buildCommittee(
  people: Iterable<PersonRow>,
  classify: (title: string) => TitleClassification,
  limits: { maxPeople: number; scanLimit: number } = { maxPeople: COMMITTEE_MAX_PEOPLE, scanLimit: COMMITTEE_SCAN_LIMIT },
): Committee {
  const all: CommitteePerson[] = [];
  let unread = false;
  for (const p of people) {
    if (all.length === limits.scanLimit) {
      unread = true;
      break;
    }
    all.push({ ...profileOf(p, classify(p.title)), company_id: p.company_id });
  }
  all.sort(bySeniority);
  const kept = all.slice(0, limits.maxPeople);
  return { total: all.length, shown: kept.length, truncated: unread || kept.length < all.length, groups: groupOf(kept) };
}

/** People in seniority order → one group per function, each with its levels (both in rank order). */
function groupOf(people: readonly CommitteePerson[]): CommitteeGroup[] {
  const byFunction = new Map<string | null, Map<string | null, CommitteePerson[]>>();
  for (const p of people) {
    let levels = byFunction.get(p.titleFunction);
    if (!levels) byFunction.set(p.titleFunction, (levels = new Map()));
    const cell = levels.get(p.titleLevel);
    if (cell) cell.push(p);
    else levels.set(p.titleLevel, [p]);
  }
  return [...byFunction.entries()]
    .sort(([a], [b]) => rankOf(FUNCTION_RANK, a) - rankOf(FUNCTION_RANK, b))
    .map(([fn, levels]) => {
      const cells: CommitteeCell[] = [...levels.entries()]
        .sort(([a], [b]) => rankOf(LEVEL_RANK, a) - rankOf(LEVEL_RANK, b))
        .map(([level, members]) => ({ level, people: members }));
      return { function: fn, count: cells.reduce((n, c) => n + c.people.length, 0), levels: cells };
    });
}

export const COMMITTEE_CSV_COLUMNS = [
  'function',
  'seniority',
  'people_id',
  'name',
  'title',
  'company_id',
  'country',
  'state',
  'city',
  'has_email',
  'has_phone',
  'has_mobile',
] as const;

/** One row per person in the committee's order; no contact detail, only whether each exists. Spreadsheet-safe (csvText). */
export function committeeCsv(groups: readonly CommitteeGroup[]): string {
  const rows = groups.flatMap((g) =>
    g.levels.flatMap((cell) =>
      cell.people.map((p) => ({
        function: g.function ?? '',
        seniority: cell.level ?? '',
        people_id: p.people_id,
        name: p.name ?? '',
        title: p.title ?? '',
        company_id: p.company_id,
        country: p.location.country ?? '',
        state: p.location.state ?? '',
        city: p.location.city ?? '',
        has_email: String(p.has_email),
        has_phone: String(p.has_phone),
        has_mobile: String(p.has_mobile),
      })),
    ),
  );
  return csvText(rows, { header: true, columns: [...COMMITTEE_CSV_COLUMNS] });
}

/** What the people add-on is, in words: the packages GROUP_PACKAGES asks for People Enrichment and Search. */
function addOnWords(group: ApiGroup): string {
  const { anyOf, addOn } = GROUP_PACKAGES[group];
  return `the ${addOn} add-on package with ${anyOf.join(' or ')}`;
}

/**
 * Why the customer's packages do not cover this part of the People section (null when they do): the
 * committee is People Search's answer, a reveal People Enrichment's, and each needs what its API needs.
 */
export function addOnRefusal(customer: Pick<CustomerRecord, 'packages'>, group: 'people-search' | 'people-enrichment'): string | null {
  if (isEntitled(customer.packages, group)) return null;
  const what = group === 'people-search' ? 'The people at an account' : 'Revealing a person';
  return `${what} need${group === 'people-search' ? '' : 's'} ${addOnWords(group)} (this customer has: ${customer.packages.join(', ') || 'no package'})`;
}

/** Why this principal may not reveal here (null when they may): the add-on first, then the permission. */
export function revealRefusal(customer: Pick<CustomerRecord, 'packages'>, principal: { role: string; mayReveal: boolean }): string | null {
  return (
    addOnRefusal(customer, 'people-enrichment') ??
    (principal.mayReveal ? null : `your role (${principal.role}) may not reveal people: it needs the people:reveal permission`)
  );
}
