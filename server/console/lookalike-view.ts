/**
 * The lookalike condition of the segment builder as data (ui/segments/LookalikeCondition.tsx edits it;
 * segment-rule-view.ts holds it in a level's draft): "accounts like" a seed — one of the customer's lists,
 * one of its segments, or company ids typed — whose score (0–1, server/lookalikes/method.ts) is at least a
 * minimum. Pure, so the console's tests check it without a browser. The server checks again (the list or
 * segment exists, a segment is not seeded by itself).
 */
import type { LookalikeCondition, LookalikeSeed } from '../../core/customer-records.ts';

export const SEED_SOURCES = ['list', 'segment', 'companies'] as const;
export type SeedSource = (typeof SEED_SOURCES)[number];
export const SEED_SOURCE_LABELS: Readonly<Record<SeedSource, string>> = { list: 'An account list', segment: 'A segment', companies: 'Company ids' };

/** Company ids a seed names at most (core/customer-records.ts MAX_SEED_COMPANIES says the same). */
export const MAX_SEED_IDS = 10_000;
/** A new condition's minimum score. */
export const DEFAULT_MIN_SCORE = '0.7';

/** A lookalike condition as edited: every source's choice kept while another is picked, the minimum as typed. */
export interface LookalikeDraft {
  source: SeedSource;
  list: string;
  /** A segment id as picked ('' none yet). */
  segment: string;
  /** Company ids as typed (commas, spaces or new lines between them). */
  companies: string;
  min_score: string;
}

export const freshLookalike = (): LookalikeDraft => ({ source: 'list', list: '', segment: '', companies: '', min_score: DEFAULT_MIN_SCORE });

/** A saved condition as the builder edits it. */
export function lookalikeDraftOf(c: LookalikeCondition): LookalikeDraft {
  return {
    source: c.list !== undefined ? 'list' : c.segment !== undefined ? 'segment' : 'companies',
    list: c.list ?? '',
    segment: c.segment !== undefined ? String(c.segment) : '',
    companies: (c.companies ?? []).join(', '),
    min_score: String(c.min_score),
  };
}

/** Typed company ids: split at commas, spaces and new lines, blanks and repeats dropped. */
export const typedIds = (typed: string): string[] => [...new Set(typed.split(/[\s,;]+/).filter((p) => p !== ''))];

/** A minimum score as typed: a number from 0 to 1, or undefined. */
export function minScoreOf(typed: string): number | undefined {
  const t = typed.trim();
  if (!/^(0(\.\d{1,3})?|1(\.0{1,3})?|\.\d{1,3})$/.test(t)) return undefined;
  return Number(t);
}

/** The seed a draft names, or why it names none yet (which part to fix). */
export function seedOf(d: LookalikeDraft): { ok: true; seed: LookalikeSeed } | { ok: false; part: 'seed'; message: string } {
  if (d.source === 'list')
    return d.list === ''
      ? { ok: false, part: 'seed', message: 'Lookalike: pick the list the accounts should look like.' }
      : { ok: true, seed: { list: d.list } };
  if (d.source === 'segment') {
    const id = Number(d.segment);
    return d.segment === '' || !Number.isSafeInteger(id) || id <= 0
      ? { ok: false, part: 'seed', message: 'Lookalike: pick the segment the accounts should look like.' }
      : { ok: true, seed: { segment: id } };
  }
  const ids = typedIds(d.companies);
  if (ids.length === 0) return { ok: false, part: 'seed', message: 'Lookalike: type at least one company id (commas or new lines between them).' };
  if (ids.length > MAX_SEED_IDS)
    return { ok: false, part: 'seed', message: `Lookalike: at most ${MAX_SEED_IDS.toLocaleString('en-US')} company ids (seed from a list for more).` };
  if (ids.some((id) => id.length > 200)) return { ok: false, part: 'seed', message: 'Lookalike: a company id is at most 200 characters.' };
  return { ok: true, seed: { companies: ids } };
}

/**
 * The condition a draft stands for, or the problem that stops it (`part` names the input). A draft whose
 * seed is not chosen yet is a problem, not an untouched condition: the builder shows where to choose it.
 */
export function lookalikeRuleOf(d: LookalikeDraft): { ok: true; condition: LookalikeCondition } | { ok: false; part: 'seed' | 'min_score'; message: string } {
  const seed = seedOf(d);
  if (!seed.ok) return seed;
  const min = minScoreOf(d.min_score);
  if (min === undefined) return { ok: false, part: 'min_score', message: 'Lookalike: the minimum score is a number from 0 to 1 (e.g. 0.7).' };
  return { ok: true, condition: { ...seed.seed, min_score: min } };
}

/** Names to say a seed with: the customer's lists and segments by id. */
export interface SeedNames {
  lists?: ReadonlyMap<string, string>;
  segments?: ReadonlyMap<number, string>;
}

/** A seed in words: `list “Best customers”`, `segment “Enterprise” (3)`, `companies 100001, 100002` (five at most, then how many more). */
export function seedInWords(seed: LookalikeSeed, names: SeedNames = {}): string {
  if (seed.list !== undefined) {
    const name = names.lists?.get(seed.list);
    return name ? `list “${name}”` : `list ${seed.list}`;
  }
  if (seed.segment !== undefined) {
    const name = names.segments?.get(seed.segment);
    return name ? `segment “${name}”` : `segment ${seed.segment}`;
  }
  const ids = seed.companies ?? [];
  return `${ids.length === 1 ? 'company' : 'companies'} ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ` and ${ids.length - 5} more` : ''}`;
}

/** The condition in words: "Accounts like list “Best customers”, score at least 0.7". */
export const lookalikeInWords = (c: LookalikeCondition, names: SeedNames = {}): string =>
  `Accounts like ${seedInWords(c, names)}, score at least ${c.min_score}`;

/** A score as shown: two decimals are enough to compare (the server keeps three). */
export const scoreText = (score: number): string => score.toFixed(2);

/** A JSON key per seed: the preview is asked again only when the seed itself changes. */
export const seedKey = (seed: LookalikeSeed): string =>
  JSON.stringify([seed.list ?? null, seed.segment ?? null, seed.companies ? [...seed.companies].sort() : null]);
