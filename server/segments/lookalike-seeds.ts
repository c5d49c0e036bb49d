/**
 * Lookalike seeds, as segment rules (`lookalike`) and the preview (server/lookalikes/routes.ts) read them:
 * a seed — one of the customer's account lists, one of its segments, or company ids — as rows of the
 * snapshot's lookalike index (server/lookalikes/snapshot-index.ts), then scored by the method
 * (server/lookalikes/method.ts).
 *
 * - A list: its company ids (`hot`, `excluded` or a named list; ./evaluate.ts `listMembers`).
 * - A segment: its members over the catalog as the membership index gives them (./membership.ts), with
 *   the facts its rule reads (./member-facts.ts) — so "accounts like our customers" can be seeded by a
 *   segment on the CRM stage. A segment seeded by a segment is resolved in turn, at most MAX_SEED_DEPTH
 *   deep; a chain that comes back to a segment it passed (a cycle: the routes refuse to save one, an
 *   import could bring one) is no seed.
 * - Company ids: as given; ids the catalog does not hold are counted (`notFound`), not an error.
 *
 * Seed rows are kept per list version and per id array (both immutable parts of a cached customer
 * record) and, for a segment, per rule and snapshot — for SEGMENT_SEED_TTL_MS when its rule reads facts
 * that change without a rule change (visits, intent, the CRM side), so identification's hot path scores
 * one account against a kept profile instead of evaluating the seed segment on every request.
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import type { LookalikeCondition, LookalikeSeed, SegmentMatch } from '../../core/customer-records.ts';
import { BoundedCache } from '../cache/bounded-cache.ts';
import type { Catalog } from '../data/catalog.ts';
import { likeness, minThousandths, type Profile } from '../lookalikes/method.ts';
import { type LookalikeIndex, lookalikeIndex } from '../lookalikes/snapshot-index.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { VisitStore } from '../state/visits/store.ts';
import { allConditions, factsNeed, listMembers, readsFacts, ruleLevel, type SegmentOwner } from './evaluate.ts';
import { gatherMemberFacts } from './member-facts.ts';
import { canonicalRule, type SegmentIndex, segmentIndex, segmentIndexCatalog } from './membership.ts';

/** What a seed is resolved from: the snapshot's catalog, the customer, and the stores a seed segment's rule may read. */
export interface SeedSources {
  catalog: Catalog;
  /** The customer: its lists, its segments (a seed segment's rule) and its products (a seed segment's intent). */
  owner: SegmentOwner & Pick<CustomerRecord, 'id' | 'products'>;
  visits?: Pick<VisitStore, 'accountsPages'>;
  crm?: Pick<CrmStore, 'listAccounts'>;
  /** The seed segments being resolved, outermost first (a cycle guard). */
  chain?: readonly number[];
}

/** The seed sources of a customer, for the routes that evaluate its segments. */
export function seedSources(
  catalog: Catalog,
  owner: SeedSources['owner'],
  stores: { visits?: Pick<VisitStore, 'accountsPages'>; crm?: Pick<CrmStore, 'listAccounts'> } = {},
): SeedSources {
  return { catalog, owner, visits: stores.visits, crm: stores.crm };
}

/**
 * The seed sources of an account's facts' own sources, when they are whole — the app's catalog and stores
 * and a customer record, as identification, enrichment (every surface), the account page and the recorder
 * hand them to `gatherAccountFacts` — so each resolves seeds as the segment routes do without naming them.
 * Undefined for a part (a test's stub of one read, a customer without its lists): then lookalike
 * conditions hold for nobody, as behaviour conditions do without a visit store.
 */
export function seedSourcesOf(sources: { catalog: object; visits?: object; crm?: object }, customer: object): SeedSources | undefined {
  const catalog = sources.catalog as Partial<Catalog>;
  if (typeof catalog.companyColumns !== 'function' || typeof catalog.company !== 'function') return undefined;
  const owner = customer as Partial<SeedSources['owner']>;
  if (!Array.isArray(owner.segments) || !Array.isArray(owner.hot_accounts) || !Array.isArray(owner.excluded_accounts)) return undefined;
  const visits = sources.visits as Partial<VisitStore> | undefined;
  const crm = sources.crm as Partial<CrmStore> | undefined;
  return seedSources(catalog as Catalog, owner as SeedSources['owner'], {
    visits: typeof visits?.accountsPages === 'function' ? (visits as VisitStore) : undefined,
    crm: typeof crm?.listAccounts === 'function' ? (crm as CrmStore) : undefined,
  });
}

/** Seed segments nest at most this deep (a segment seeded by a segment seeded by …). */
export const MAX_SEED_DEPTH = 4;
/** How long the rows of a seed segment whose rule reads facts are kept. */
export const SEGMENT_SEED_TTL_MS = 10_000;

/** Why a seed has no accounts to compare with. */
export type SeedProblem = 'unknown_list' | 'unknown_segment' | 'cycle' | 'empty';

export class SeedError extends Error {
  constructor(
    readonly problem: SeedProblem,
    message: string,
  ) {
    super(message);
  }
}

/** A seed as rows of a lookalike index. */
export interface ResolvedSeed {
  index: LookalikeIndex;
  /** The seed's rows, ascending, unique. */
  rows: Uint32Array;
  /** Company ids the seed named that the catalog does not hold. */
  notFound: number;
}

const EMPTY_ROWS = new Uint32Array(0);
/** Rows per list version (a Set) and per id array, with the index they are rows of. */
const rowsByIdentity = new WeakMap<object, { index: LookalikeIndex; rows: Uint32Array; notFound: number }>();
/** Rows of seed segments per segment index: by customer, segment and canonical rule. */
const segmentSeeds = new WeakMap<SegmentIndex, BoundedCache<string, { until: number; rows: Promise<Uint32Array> }>>();

async function rowsOfIds(index: LookalikeIndex, key: object, ids: () => Iterable<string>): Promise<{ rows: Uint32Array; notFound: number }> {
  const hit = rowsByIdentity.get(key);
  if (hit && hit.index === index) return hit;
  const found = await index.rowsOfSliced(ids());
  // Only immutable keys are kept (a cached customer record's frozen arrays, a list version's Set).
  if (Object.isFrozen(key) || key instanceof Set) rowsByIdentity.set(key, { index, ...found });
  return found;
}

/**
 * The seed's rows in the snapshot's lookalike index. Throws SeedError for a list or segment the customer
 * does not have and for a cycle of seed segments; an empty seed is no error here (its rows are empty).
 */
export async function resolveSeed(sources: SeedSources, seed: LookalikeSeed, now = new Date()): Promise<ResolvedSeed> {
  const index = await lookalikeIndex(sources.catalog);
  if (seed.companies !== undefined) return { index, ...(await rowsOfIds(index, seed.companies, () => seed.companies!)) };
  if (seed.list !== undefined) {
    const set = listMembers(sources.owner)(seed.list.toLowerCase());
    if (!set) throw new SeedError('unknown_list', `no list ${JSON.stringify(seed.list)} (GET /admin/api/customers/${sources.owner.id}/lists)`);
    return { index, ...(await rowsOfIds(index, set, () => set)) };
  }
  const id = seed.segment!;
  const segment = sources.owner.segments.find((s) => s.id === id);
  if (!segment) throw new SeedError('unknown_segment', `no segment ${id} of customer ${sources.owner.id}`);
  const chain = sources.chain ?? [];
  if (chain.includes(id) || chain.length >= MAX_SEED_DEPTH)
    throw new SeedError('cycle', `segment ${id} is seeded, through ${[...chain, id].join(' → ')}, by itself: a lookalike cannot be seeded by its own segment`);
  const segIndex = await segmentIndex(sources.catalog);
  const lists = listMembers(sources.owner);
  let kept = segmentSeeds.get(segIndex);
  if (!kept) segmentSeeds.set(segIndex, (kept = new BoundedCache(256)));
  const key = `${sources.owner.id}\n${id}\n${canonicalRule(segment.match, lists)}`;
  const nowMs = now.getTime();
  const hit = kept.get(key);
  let members: Promise<Uint32Array>;
  if (hit && hit.until > nowMs) members = hit.rows;
  else {
    members = (async () => {
      const facts = await gatherMemberFacts(
        { catalog: sources.catalog, visits: sources.visits, crm: sources.crm, seeds: { ...sources, chain: [...chain, id] } },
        segIndex,
        sources.owner,
        [segment.match],
        now,
      );
      return segIndex.membersOf(segment.match, lists, facts);
    })();
    kept.set(key, { until: readsFacts(factsNeed(segment.match)) ? nowMs + SEGMENT_SEED_TTL_MS : Number.POSITIVE_INFINITY, rows: members });
    // A failed read is not kept: the next request reads again.
    members.catch(() => {
      if (kept.get(key)?.rows === members) kept.set(key, { until: 0, rows: members });
    });
  }
  const rows = await members;
  if (segmentIndexCatalog(segIndex) === index.catalog) return { index, rows, notFound: 0 };
  // The two indexes are of different snapshots (one of them still building after a reload): by company id.
  const byId = await index.rowsOfSliced(
    (function* () {
      for (const row of rows) yield segIndex.companyId(row);
    })(),
  );
  return { index, rows: byId.rows, notFound: 0 };
}

/** The lookalike conditions of rules (groups included), each once. */
export function lookalikeConditions(rules: readonly SegmentMatch[]): LookalikeCondition[] {
  const out: LookalikeCondition[] = [];
  for (const rule of rules) for (const c of allConditions(ruleLevel(rule))) if (c.kind === 'lookalike' && !out.includes(c.lookalike)) out.push(c.lookalike);
  return out;
}

/** The same condition (its seed and minimum), however it was built: the answers of `lookalike` facts are found by it. */
const conditionKey = (c: LookalikeCondition): string => JSON.stringify([c.list ?? null, c.segment ?? null, c.companies ?? null, c.min_score]);

/** Answers per condition: by the object itself (a rule's own, the usual case), else by an equal one. */
export function perCondition<T>(answers: Map<LookalikeCondition, T>): (c: LookalikeCondition) => T | undefined {
  let byKey: Map<string, T> | undefined;
  return (c) => {
    if (answers.has(c)) return answers.get(c);
    byKey ??= new Map([...answers].map(([k, v]) => [conditionKey(k), v]));
    return byKey.get(conditionKey(c));
  };
}

/** A seed's rows, or none when it names what the customer does not have (a rule then holds for nobody). */
async function seedOrNone(sources: SeedSources, seed: LookalikeSeed, now: Date): Promise<ResolvedSeed | null> {
  try {
    const resolved = await resolveSeed(sources, seed, now);
    return resolved.rows.length > 0 ? resolved : null;
  } catch (e) {
    if (e instanceof SeedError) return null;
    throw e;
  }
}

/**
 * The member rows (ascending) of a lookalike condition in a segment index: the accounts whose score reaches
 * `min_score`, the seed's own left out.
 */
export async function lookalikeMemberRows(sources: SeedSources, c: LookalikeCondition, segIndex: SegmentIndex, now = new Date()): Promise<Uint32Array> {
  const seed = await seedOrNone(sources, c, now);
  if (!seed) return EMPTY_ROWS;
  const rows = await seed.index.rowsAtLeast(await seed.index.scoresOf(seed.rows), minThousandths(c.min_score));
  if (segmentIndexCatalog(segIndex) === seed.index.catalog) return rows;
  const out: number[] = [];
  for (const row of rows) {
    const at = segIndex.rowOf(seed.index.companyId(row));
    if (at >= 0) out.push(at);
  }
  return Uint32Array.from(out).sort();
}

const profiles = new WeakMap<Uint32Array, Profile>();

/** A seed's profile, kept per seed rows (kept rows are the same array while the seed is unchanged). */
function profileOf(seed: ResolvedSeed): Profile {
  let p = profiles.get(seed.rows);
  if (!p) profiles.set(seed.rows, (p = seed.index.profileOf(seed.rows)));
  return p;
}

/** Whether a row is one of the seed's (rows ascending). */
function inSeed(rows: Uint32Array, row: number): boolean {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid] < row) lo = mid + 1;
    else if (rows[mid] > row) hi = mid - 1;
    else return true;
  }
  return false;
}

/**
 * One account's scores against the seeds of lookalike conditions (what `AccountFacts.lookalike` answers):
 * undefined for an account of the seed, a seed without accounts, or an account the catalog does not hold.
 */
export async function lookalikeScorer(
  sources: SeedSources,
  conditions: readonly LookalikeCondition[],
  companyId: string,
  now = new Date(),
): Promise<(c: LookalikeCondition) => number | undefined> {
  const company = sources.catalog.company(companyId);
  const scores = new Map<LookalikeCondition, number | undefined>();
  for (const c of conditions) {
    const seed = company ? await seedOrNone(sources, c, now) : null;
    if (!seed || !company || inSeed(seed.rows, seed.index.rowOf(companyId))) scores.set(c, undefined);
    else scores.set(c, likeness(profileOf(seed), company).score);
  }
  return perCondition(scores);
}
