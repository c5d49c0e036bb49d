/**
 * Pure decisions of People Search: which profiles of a domain's companies match the filters, the page,
 * and the answer. Profiles say only whether email, phone and mobile exist — never the values (those
 * come from People Enrichment, by people id, and are charged there). Never charged.
 *
 * Order: people_id (text order), so pages are stable. Filters: AND across filters, OR within one,
 * compared case-, accent- and punctuation-insensitively:
 *   locations   the person's country, state or city equals a term ("Germany", "bavaria", "San Francisco");
 *   industries  the company's industry or subindustry equals a term;
 *   job_titles  the term's words appear consecutively in the title ("vp", "marketing", "head of sales"),
 *               or the term equals the title's titleLevel or titleFunction ("Director", "Engineering").
 */
import type { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import { MESSAGES } from '../enrichment/answers.ts';
import { textKey } from '../enrichment/text-key.ts';
import { orNull } from '../http/null-rule.ts';
import type { RouteResult } from '../http/route-def.ts';
import type { TitleClassification } from '../scoring/model.ts';
import { fullName } from './enrich-person.ts';
import type { PeopleProfile, PeopleSearchBody } from './schema.ts';

export interface SearchFilters {
  locations: readonly string[];
  industries: readonly string[];
  job_titles: readonly string[];
}

/** The companies whose industry passes the `industries` filter (all of them when it is empty). */
export function companiesInIndustries(companies: readonly CompanyRow[], industries: readonly string[]): CompanyRow[] {
  if (industries.length === 0) return [...companies];
  const wanted = new Set(industries.map(textKey));
  return companies.filter((c) => wanted.has(textKey(c.industry)) || wanted.has(textKey(c.subindustry)));
}

export function locationMatches(p: Pick<PersonRow, 'country' | 'state' | 'city'>, locations: readonly string[]): boolean {
  if (locations.length === 0) return true;
  const have = new Set([p.country, p.state, p.city].map(textKey).filter((k) => k !== ''));
  return locations.some((l) => have.has(textKey(l)));
}

export function jobTitleMatches(title: string, classification: TitleClassification, jobTitles: readonly string[]): boolean {
  if (jobTitles.length === 0) return true;
  const words = ` ${textKey(title)} `;
  const labels = new Set([classification.titleLevel, classification.titleFunction].map(textKey).filter((k) => k !== ''));
  return jobTitles.some((t) => {
    const k = textKey(t);
    return k !== '' && (labels.has(k) || words.includes(` ${k} `));
  });
}

export function profileOf(p: PersonRow, classification: TitleClassification): PeopleProfile {
  return {
    people_id: p.people_id,
    name: orNull(fullName(p)),
    title: orNull(p.title),
    titleLevel: orNull(classification.titleLevel),
    titleFunction: orNull(classification.titleFunction),
    location: { country: orNull(p.country), state: orNull(p.state), city: orNull(p.city) },
    has_email: p.email.trim() !== '',
    has_phone: p.phone.trim() !== '',
    has_mobile: p.mobile.trim() !== '',
  };
}

/**
 * One pass over the candidates (already restricted to the domain's companies in the industries filter,
 * ordered by people_id): counts every match, keeps only the requested page.
 */
export function searchPeople(
  people: Iterable<PersonRow>,
  filters: Pick<SearchFilters, 'locations' | 'job_titles'>,
  paging: { page: number; page_size: number },
  classify: (title: string) => TitleClassification,
): { total: number; profiles: PeopleProfile[] } {
  const first = (paging.page - 1) * paging.page_size;
  const profiles: PeopleProfile[] = [];
  let total = 0;
  const byTitle = filters.job_titles.length > 0;
  for (const p of people) {
    if (!locationMatches(p, filters.locations)) continue;
    // Titles are classified only when a filter needs it or the profile is on the page.
    const classification = byTitle ? classify(p.title) : null;
    if (classification && !jobTitleMatches(p.title, classification, filters.job_titles)) continue;
    if (total >= first && profiles.length < paging.page_size) profiles.push(profileOf(p, classification ?? classify(p.title)));
    total++;
  }
  return { total, profiles };
}

/** 404 when the domain is malformed or belongs to no company in the catalog; else 200 (possibly no profiles). */
export function peopleSearchAnswer(query: PeopleSearchBody, result: { total: number; profiles: PeopleProfile[] } | null): RouteResult {
  const paging = { page: query.page, page_size: query.page_size };
  if (!result) return { status: 404, body: { status: 'error', message: MESSAGES.noData, total: 0, ...paging, profiles: [], code: 'not_found' } };
  return { status: 200, body: { total: result.total, ...paging, profiles: result.profiles } };
}
