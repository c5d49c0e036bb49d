/**
 * Lookalike accounts: how like a seed (an account list, a segment, company ids) an account of the catalog
 * is, from the firmographics the catalog holds. Pure and deterministic: the same seed and catalog give the
 * same scores, reasons and order on every node. The per-snapshot index (./snapshot-index.ts) applies the
 * very same functions to every distinct value of a column once, then adds up per row.
 *
 * The method, in five steps (docs/console.md "Lookalike accounts" says it for marketers):
 *
 * 1. Features: eight families of the company's row, each with a weight (FAMILIES): industry 3,
 *    sub-industry 3, NAICS code 2.5, employee band 2, SIC code 1.5, revenue band 1.5, country 1, region 1.
 *    The catalog holds no technographics, and intent and visits are behaviour (a segment combines them
 *    with a lookalike condition), so neither is a feature.
 * 2. The seed's profile: per family, how many seed accounts have each value (trimmed, ignoring case);
 *    for the codes also each prefix (NAICS 2–6 digits, SIC 2–4).
 * 3. An account's similarity per family, in [0, 1], relative to the seed's most common value, so that the
 *    typical seed account scores 1 however varied the seed is:
 *    - a plain value (industry, sub-industry, country, region): seeds with it ÷ seeds with the most
 *      common value;
 *    - a code: the best over the code's prefixes of depth credit × seeds sharing that prefix ÷ seeds
 *      sharing the most common prefix of that length (credit 1 for the whole code, less for shorter
 *      prefixes: CODE_LEVELS);
 *    - a band: the best over the seed's bands of (seeds in it ÷ seeds in the most common one) ×
 *      closeness (1 the same band, 0.5 the next band up or down, 0 further; core/vocabulary.ts orders them);
 *    - a blank value: 0.
 * 4. The score: Σ weight × similarity ÷ Σ weight, the sums over the families at least one seed account has
 *    a value for (a family the seed says nothing about neither helps nor hurts), in thousandths (three
 *    decimals). Ranked by score, highest first; equal scores by company id (text order).
 * 5. Reasons: every family with a similarity of at least REASON_AT, the largest share of the score
 *    first — "same industry (Software)", "shares NAICS 5112", "200–499 employees", "same region (EMEA)".
 *
 * The seed's own accounts are never among the results (the callers leave them out: they would head the list).
 */
import type { CompanyRow } from '../../core/catalog-records.ts';
import { EMPLOYEE_RANGES, REVENUE_RANGES } from '../../core/vocabulary.ts';

/** The catalog columns the method reads. */
export const FEATURE_COLUMNS = ['industry', 'subindustry', 'naics', 'employee_range', 'sic', 'revenue_range', 'country_iso_code', 'region'] as const;
export type FeatureColumn = (typeof FEATURE_COLUMNS)[number];
export type FeatureRow = Pick<CompanyRow, FeatureColumn>;

/** A code family's prefix lengths, longest first, and the credit a shared prefix of that length earns. */
export interface CodeLevel {
  digits: number;
  credit: number;
}

interface FamilyBase {
  /** The family's name (stable: tests and docs use it). */
  key: string;
  column: FeatureColumn;
  weight: number;
}
export type Family =
  | (FamilyBase & { kind: 'value'; reason: (value: string) => string })
  | (FamilyBase & { kind: 'code'; label: string; levels: readonly CodeLevel[] })
  | (FamilyBase & { kind: 'band'; bands: readonly string[]; same: (band: string) => string; near: (band: string) => string });

/** A band as people write it: `200–499`, `$10M–$50M` (the catalog's hyphen as an en dash). */
export const bandWords = (band: string) => band.replace(/-/g, '–');

/** NAICS: 2 digits the sector, 3 the subsector, 4 the industry group, 5 and 6 the industry. */
const NAICS_LEVELS: readonly CodeLevel[] = [
  { digits: 6, credit: 1 },
  { digits: 5, credit: 0.9 },
  { digits: 4, credit: 0.8 },
  { digits: 3, credit: 0.6 },
  { digits: 2, credit: 0.4 },
];
/** SIC: 2 digits the major group, 3 the industry group, 4 the industry. */
const SIC_LEVELS: readonly CodeLevel[] = [
  { digits: 4, credit: 1 },
  { digits: 3, credit: 0.8 },
  { digits: 2, credit: 0.5 },
];
export const CODE_LEVELS = { naics: NAICS_LEVELS, sic: SIC_LEVELS } as const;

/** The families, in the order their contributions are added up (the order is part of the method: floats). */
export const FAMILIES: readonly Family[] = [
  { key: 'industry', column: 'industry', weight: 3, kind: 'value', reason: (v) => `same industry (${v})` },
  { key: 'subindustry', column: 'subindustry', weight: 3, kind: 'value', reason: (v) => `same sub-industry (${v})` },
  { key: 'naics', column: 'naics', weight: 2.5, kind: 'code', label: 'NAICS', levels: NAICS_LEVELS },
  {
    key: 'employees',
    column: 'employee_range',
    weight: 2,
    kind: 'band',
    bands: EMPLOYEE_RANGES,
    same: (b) => `${bandWords(b)} employees`,
    near: (b) => `similar size (${bandWords(b)} employees)`,
  },
  { key: 'sic', column: 'sic', weight: 1.5, kind: 'code', label: 'SIC', levels: SIC_LEVELS },
  {
    key: 'revenue',
    column: 'revenue_range',
    weight: 1.5,
    kind: 'band',
    bands: REVENUE_RANGES,
    same: (b) => `${bandWords(b)} revenue`,
    near: (b) => `similar revenue (${bandWords(b)})`,
  },
  { key: 'country', column: 'country_iso_code', weight: 1, kind: 'value', reason: (v) => `same country (${v})` },
  { key: 'region', column: 'region', weight: 1, kind: 'value', reason: (v) => `same region (${v})` },
];

/** A family's similarity at or above this gives a reason. */
export const REASON_AT = 0.5;
/** Closeness of a band one step away from a seed band. */
const NEXT_BAND = 0.5;

/** A value as the method compares it: trimmed, ignoring case. */
export const normalise = (value: string | null | undefined): string => (value ?? '').trim().toLowerCase();

/** A count per value, and the largest count (0: no seed account has a value). */
export interface Tally {
  counts: ReadonlyMap<string, number>;
  top: number;
}

/** What the seed holds of one family. */
export interface FamilyProfile {
  /** Seed accounts with a value. */
  seeds: number;
  values: Tally;
  /** Code families: a tally per prefix length (CodeLevel order). */
  prefixes?: readonly Tally[];
}

/** The seed's profile: one per family (FAMILIES order), and the weight of the families it has values for. */
export interface Profile {
  families: readonly FamilyProfile[];
  /** Σ weight of the families at least one seed account has a value for (0: the seed says nothing). */
  weight: number;
  /** Seed accounts. */
  seeds: number;
}

function tallyOf(counts: Map<string, number>): Tally {
  let top = 0;
  for (const n of counts.values()) if (n > top) top = n;
  return { counts, top };
}

/**
 * The profile from each family's values with their counts among the seed accounts (raw values: they are
 * normalised here; blanks are no value). `seeds` is how many accounts the seed has.
 */
export function profileFromCounts(valuesOf: (family: Family, index: number) => Iterable<readonly [string, number]>, seeds: number): Profile {
  let weight = 0;
  const families = FAMILIES.map((family, i): FamilyProfile => {
    const counts = new Map<string, number>();
    let withValue = 0;
    for (const [raw, n] of valuesOf(family, i)) {
      const v = normalise(raw);
      if (v === '' || n <= 0) continue;
      counts.set(v, (counts.get(v) ?? 0) + n);
      withValue += n;
    }
    if (withValue > 0) weight += family.weight;
    if (family.kind !== 'code') return { seeds: withValue, values: tallyOf(counts) };
    const prefixes = family.levels.map(({ digits }) => {
      const byPrefix = new Map<string, number>();
      for (const [v, n] of counts) if (v.length >= digits) byPrefix.set(v.slice(0, digits), (byPrefix.get(v.slice(0, digits)) ?? 0) + n);
      return tallyOf(byPrefix);
    });
    return { seeds: withValue, values: tallyOf(counts), prefixes };
  });
  return { families, weight, seeds };
}

/** The profile of seed accounts' rows. */
export function profileOf(rows: Iterable<FeatureRow>): Profile {
  const perFamily = FAMILIES.map(() => new Map<string, number>());
  let seeds = 0;
  for (const row of rows) {
    seeds++;
    FAMILIES.forEach((f, i) => {
      const v = row[f.column] ?? '';
      perFamily[i].set(v, (perFamily[i].get(v) ?? 0) + 1);
    });
  }
  return profileFromCounts((_f, i) => perFamily[i], seeds);
}

/** How one value matches a family of the profile: its similarity, and what the reason says. */
export interface FamilyMatch {
  similarity: number;
  /** A code family: the prefix shared (as the value spells it). A band family: whether the band itself or a neighbour matched. */
  detail?: string;
}

const NO_MATCH: FamilyMatch = Object.freeze({ similarity: 0 });

/** The similarity of one (raw) value to the seed's profile of family `i`. */
export function familyMatch(profile: Profile, i: number, raw: string | null | undefined): FamilyMatch {
  const family = FAMILIES[i];
  const fp = profile.families[i];
  const v = normalise(raw);
  if (v === '' || fp.seeds === 0) return NO_MATCH;
  if (family.kind === 'value') return { similarity: (fp.values.counts.get(v) ?? 0) / fp.values.top };
  if (family.kind === 'code') {
    let best = NO_MATCH;
    family.levels.forEach(({ digits, credit }, level) => {
      if (v.length < digits) return;
      const tally = fp.prefixes![level];
      const n = tally.counts.get(v.slice(0, digits)) ?? 0;
      const similarity = n === 0 ? 0 : (credit * n) / tally.top;
      if (similarity > best.similarity) best = { similarity, detail: (raw ?? '').trim().slice(0, digits) };
    });
    return best;
  }
  const rank = family.bands.findIndex((b) => b.toLowerCase() === v);
  let best = NO_MATCH;
  for (const [seedValue, n] of fp.values.counts) {
    const share = n / fp.values.top;
    let similarity = 0;
    let detail = 'same';
    if (seedValue === v) similarity = share;
    else if (rank >= 0) {
      const seedRank = family.bands.findIndex((b) => b.toLowerCase() === seedValue);
      if (seedRank >= 0 && Math.abs(seedRank - rank) === 1) {
        similarity = share * NEXT_BAND;
        detail = 'near';
      }
    }
    // The seed's own band wins a tie with a neighbour, whatever order the profile counted its bands in.
    if (similarity > best.similarity || (similarity > 0 && similarity === best.similarity && detail === 'same')) best = { similarity, detail };
  }
  return best;
}

/**
 * A score in thousandths from each family's weighted similarity (weight × similarity, FAMILIES order):
 * what the index adds up per row, so both give the same number.
 */
export function thousandths(profile: Profile, weighted: ArrayLike<number>): number {
  if (profile.weight === 0) return 0;
  let sum = 0;
  for (let i = 0; i < FAMILIES.length; i++) if (profile.families[i].seeds > 0) sum += weighted[i];
  return Math.round((sum / profile.weight) * 1000);
}

/** A minimum score (0–1) in thousandths: a score in thousandths holds when it is at least this. */
export const minThousandths = (minScore: number): number => Math.ceil(Math.round(minScore * 1e6) / 1e3);

/** Whether a score (0–1, three decimals) reaches a minimum score. */
export const reaches = (score: number, minScore: number): boolean => Math.round(score * 1000) >= minThousandths(minScore);

export interface Likeness {
  /** In [0, 1], three decimals. */
  score: number;
  reasons: string[];
}

/** One account against the seed's profile: its score and the reasons, the largest share of the score first. */
export function likeness(profile: Profile, row: FeatureRow): Likeness {
  const matches = FAMILIES.map((f, i) => familyMatch(profile, i, row[f.column]));
  const score = thousandths(
    profile,
    matches.map((m, i) => FAMILIES[i].weight * m.similarity),
  );
  const reasons = matches
    .map((m, i) => ({ m, i, share: FAMILIES[i].weight * m.similarity }))
    .filter(({ m }) => m.similarity >= REASON_AT)
    .sort((a, b) => b.share - a.share || a.i - b.i)
    .map(({ m, i }) => reasonOf(FAMILIES[i], m, (row[FAMILIES[i].column] ?? '').trim()));
  return { score: score / 1000, reasons };
}

function reasonOf(family: Family, match: FamilyMatch, value: string): string {
  switch (family.kind) {
    case 'value':
      return family.reason(value);
    case 'code':
      return `shares ${family.label} ${match.detail}`;
    case 'band':
      return match.detail === 'near' ? family.near(value) : family.same(value);
  }
}

/** An account of a ranking: its id and its score in thousandths. */
export interface Ranked {
  company_id: string;
  thousandths: number;
}

/** Highest score first; equal scores by company id (text order, as the catalog's). */
export const byScore = (a: Ranked, b: Ranked): number =>
  b.thousandths - a.thousandths || (a.company_id < b.company_id ? -1 : a.company_id > b.company_id ? 1 : 0);

/**
 * The `limit` accounts most like the seed among `rows`, the seed's own accounts left out: the method on
 * plain rows (tests, and the benchmark's baseline: a full scan scoring every row).
 */
export function rankLookalikes(
  profile: Profile,
  rows: Iterable<FeatureRow & { company_id: string }>,
  seeds: ReadonlySet<string>,
  limit: number,
): (Ranked & Likeness)[] {
  const scored: (Ranked & Likeness)[] = [];
  for (const row of rows) {
    if (seeds.has(row.company_id)) continue;
    const l = likeness(profile, row);
    scored.push({ company_id: row.company_id, thousandths: Math.round(l.score * 1000), ...l });
  }
  return scored.sort(byScore).slice(0, limit);
}
