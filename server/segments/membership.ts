/**
 * Segment membership over the whole catalog, without scanning SQLite per request: per data snapshot, one
 * columnar index of the columns segment rules read (./evaluate.ts MATCH_FIELDS), dictionary-encoded
 * (each row a small integer per column; the distinct values lower-cased once), rows in company_id text
 * order. A rule is evaluated by marking the accepted dictionary entries of each field once and walking
 * the code arrays (a few ms at 1M companies); the members of a rule (row numbers, ascending = company_id
 * order) are cached per index by the rule's canonical form, so a segment's size and pages cost a lookup
 * until its rule or the snapshot changes (a new snapshot is a new catalog object: a new index).
 *
 * Memory at 1M companies: ~2 MB per column (Uint16 codes) × 10 columns + the company ids (~12 MB packed
 * into one string with offsets). Built as soon as the dataset opens a snapshot (`warmSegmentIndex`: at
 * start-up and on every reload), in short slices that yield the event loop; until it is ready, requests
 * answer from the replaced snapshot's index, and only the very first snapshot's requests wait for it.
 *
 * `in_list` (the customer's account lists): a list's rows are looked up once per list version (a list is
 * an immutable array of the cached customer record; `ListMembers` gives one Set per version) and the
 * member cache is keyed by the rule and the versions of the lists it names, so a list edit is seen at once.
 *
 * A rule is a tree (./evaluate.ts `Level`): each condition gives its member rows either as a row test (a
 * catalog field, an intent condition over the per-row scores) or as an ascending row set (company ids,
 * lists, behaviour, a group); `all` intersects the sets and filters by the tests, `any` unites them with
 * the rows any test accepts. Intent, behaviour and the CRM side read `MemberFacts` (./member-facts.ts: the
 * intent score of every company per product, the accounts that visited, the accounts a CRM has a record
 * of), gathered per request by the caller; a rule that reads them is evaluated afresh each time (its facts
 * change with every page view and CRM sync), the others are cached. A CRM condition that holds for an
 * account without a record (`crm_owner: ["none"]`, `crm_stage: {not_in: …}`) is a row test over the
 * whole catalog; one that does not, the row set of the accounts with a record that it accepts.
 */

import type { CompanyRow } from '../../core/catalog-records.ts';
import type { SegmentMatch } from '../../core/customer-records.ts';
import { BoundedCache } from '../cache/bounded-cache.ts';
import type { Catalog } from '../data/catalog.ts';
import {
  type Condition,
  type CrmFacts,
  crmHolds,
  factsNeed,
  intentHolds,
  type Level,
  type ListMembers,
  MATCH_FIELDS,
  type MatchField,
  NO_CRM_FACTS,
  NO_LISTS,
  readsFacts,
  ruleLevel,
  valueMatches,
} from './evaluate.ts';
import type { MemberFacts } from './member-facts.ts';
import { topicWindowStart } from './topic-rule.ts';

/** The columns the index holds: every column a rule field reads, company_id apart. */
const INDEX_COLUMNS = [...new Set(Object.values(MATCH_FIELDS).flatMap((f) => f.columns))].filter((c) => c !== 'company_id') as (keyof CompanyRow)[];
/**
 * Rows read per SQLite statement, and how long the build runs before yielding the event loop: a page is
 * ~2.5 ms of CPU at 1M companies, so a request waits about one slice for the build (50k-row pages, read
 * and encoded in one go, blocked the loop 220–550 ms each).
 */
const PAGE_ROWS = 1_000;
const SLICE_MS = 5;
const nextTurn = () => new Promise((r) => setImmediate(r));
/** Rules whose members are kept per index (each at most 4 bytes per member). */
const MEMBER_CACHE_LIMIT = 512;

interface Column {
  /** Distinct values, lower-cased; code = position. */
  dict: string[];
  codes: Uint16Array | Uint32Array;
}

/**
 * One column's dictionary: a raw value seen before is found as is (no lower-casing per row: SQLite hands
 * out a fresh string per row, but few distinct ones); a new raw value is lower-cased once and joins the
 * entry of its lower-case form, so 'Software' and 'software' share a code.
 */
class ColumnDictionary {
  readonly dict: string[] = [];
  private readonly byRaw = new Map<string, number>();
  private readonly byLower = new Map<string, number>();

  code(raw: string | null): number {
    const v = raw ?? '';
    let code = this.byRaw.get(v);
    if (code === undefined) {
      const lower = v.toLowerCase();
      code = this.byLower.get(lower);
      if (code === undefined) {
        code = this.dict.length;
        this.dict.push(lower);
        this.byLower.set(lower, code);
      }
      this.byRaw.set(v, code);
    }
    return code;
  }
}

/**
 * Accumulates pages of raw rows (company_id, then INDEX_COLUMNS) into typed-array chunks, one per page and
 * column, and the page's ids joined: no per-row JS arrays or id strings outlive their page (number[] codes
 * and 1M id strings kept to the end took the heap's peak to ~310–360 MB at 1M companies; now ~65–90 MB).
 */
class IndexBuilder {
  private readonly dicts = INDEX_COLUMNS.map(() => new ColumnDictionary());
  private readonly codeChunks: Uint32Array[][] = INDEX_COLUMNS.map(() => []);
  private readonly idChunks: string[] = [];
  private readonly lengthChunks: Uint32Array[] = [];
  private rows = 0;

  add(page: readonly (readonly (string | null)[])[]): void {
    const n = page.length;
    if (n === 0) return;
    const lengths = new Uint32Array(n);
    const ids = new Array<string>(n);
    const chunks = INDEX_COLUMNS.map(() => new Uint32Array(n));
    for (let i = 0; i < n; i++) {
      const row = page[i];
      const id = row[0] as string;
      ids[i] = id;
      lengths[i] = id.length;
      for (let c = 0; c < chunks.length; c++) chunks[c][i] = this.dicts[c].code(row[c + 1]);
    }
    this.idChunks.push(ids.join(''));
    this.lengthChunks.push(lengths);
    for (let c = 0; c < chunks.length; c++) this.codeChunks[c].push(chunks[c]);
    this.rows += n;
  }

  /** The index's arrays, yielding between them (together ~30 ms at 1M companies). */
  async finish(): Promise<{ ids: string; offsets: Uint32Array; columns: Map<keyof CompanyRow, Column> }> {
    const offsets = new Uint32Array(this.rows + 1);
    let row = 0;
    let total = 0;
    for (const lengths of this.lengthChunks) {
      for (let i = 0; i < lengths.length; i++) {
        offsets[row++] = total;
        total += lengths[i];
      }
    }
    offsets[row] = total;
    const columns = new Map<keyof CompanyRow, Column>();
    for (let c = 0; c < INDEX_COLUMNS.length; c++) {
      await nextTurn();
      const { dict } = this.dicts[c];
      const codes = dict.length <= 0xffff ? new Uint16Array(this.rows) : new Uint32Array(this.rows);
      let at = 0;
      for (const chunk of this.codeChunks[c]) {
        codes.set(chunk, at);
        at += chunk.length;
      }
      columns.set(INDEX_COLUMNS[c], { dict, codes });
    }
    await nextTurn();
    return { ids: this.idChunks.join(''), offsets, columns };
  }
}

export class SegmentIndex {
  private readonly members = new BoundedCache<string, Uint32Array>(MEMBER_CACHE_LIMIT);
  /** The rows of a list version (its Set), ascending. */
  private readonly listRows = new WeakMap<ReadonlySet<string>, Uint32Array>();

  private constructor(
    /** Company ids joined, in company_id order; row i is ids.slice(offsets[i], offsets[i + 1]). */
    private readonly ids: string,
    private readonly offsets: Uint32Array,
    private readonly columns: ReadonlyMap<keyof CompanyRow, Column>,
    readonly size: number,
  ) {}

  /**
   * Builds the index from the catalog in pages, giving the event loop back whenever a slice of pages has
   * run SLICE_MS, so requests keep being answered while a new snapshot's index is built.
   */
  static async build(catalog: Catalog): Promise<SegmentIndex> {
    const builder = new IndexBuilder();
    const select: (keyof CompanyRow)[] = ['company_id', ...INDEX_COLUMNS];
    let after = '';
    let slice = performance.now();
    for (;;) {
      const page = catalog.companyColumns(select, after, PAGE_ROWS);
      builder.add(page);
      if (page.length < PAGE_ROWS) break;
      after = page[page.length - 1][0];
      if (performance.now() - slice >= SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    const { ids, offsets, columns } = await builder.finish();
    const index = new SegmentIndex(ids, offsets, columns, offsets.length - 1);
    builtFrom.set(index, catalog);
    return index;
  }

  /** The row of a company id, or -1 when the catalog has no such company. */
  rowOf(companyId: string): number {
    const at = this.find(companyId);
    return at >= 0 ? at : -1;
  }

  companyId(row: number): string {
    return this.ids.slice(this.offsets[row], this.offsets[row + 1]);
  }

  /** The row of a company id, or -(insertion point) - 1 when absent (text order, as SQLite's BINARY). */
  private find(companyId: string): number {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const id = this.companyId(mid);
      if (id < companyId) lo = mid + 1;
      else if (id > companyId) hi = mid - 1;
      else return mid;
    }
    return -lo - 1;
  }

  /**
   * The member rows of a rule, ascending (company_id order). `lists`: the customer's account lists
   * (without them an `in_list` condition holds for nobody); `facts`: what intent, behaviour and CRM
   * conditions read (without them intent and behaviour hold for nobody, and no account has a CRM owner or
   * stage). Cached by the rule's canonical form with the versions of the lists it names, unless it reads facts.
   */
  membersOf(match: SegmentMatch, lists: ListMembers = NO_LISTS, facts?: MemberFacts): Uint32Array {
    const level = ruleLevel(match);
    if (readsFacts(factsNeed(match))) return this.evaluateLevel(level, lists, facts);
    const key = canonicalRule(match, lists);
    return this.members.get(key) ?? this.members.set(key, this.evaluateLevel(level, lists, facts));
  }

  /** The rows of the companies of one list version that the catalog holds, ascending. */
  private rowsOfList(set: ReadonlySet<string>): Uint32Array {
    let rows = this.listRows.get(set);
    if (!rows) {
      const found: number[] = [];
      for (const id of set) {
        const at = this.find(id);
        if (at >= 0) found.push(at);
      }
      rows = Uint32Array.from(found).sort();
      this.listRows.set(set, rows);
    }
    return rows;
  }

  /** How many rows of `members` come before the first member whose company id is > `afterId`. */
  static startAfter(index: SegmentIndex, members: Uint32Array, afterId: string): number {
    const at = index.find(afterId);
    // The first row strictly after afterId: at + 1 when present, the insertion point when absent.
    const firstRow = at >= 0 ? at + 1 : -at - 1;
    let lo = 0;
    let hi = members.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (members[mid] < firstRow) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** A level's member rows: its conditions' row sets and row tests combined by its op. */
  private evaluateLevel(level: Level, lists: ListMembers, facts: MemberFacts | undefined): Uint32Array {
    if (level.conditions.length === 0) return new Uint32Array(0);
    const sets: Uint32Array[] = [];
    const tests: ((row: number) => boolean)[] = [];
    for (const c of level.conditions) {
      const term = this.term(c, lists, facts);
      if (term instanceof Uint32Array) sets.push(term);
      else tests.push(term);
    }
    return level.op === 'any' ? this.union(sets, tests) : this.intersection(sets, tests);
  }

  /** One condition as a row set (ascending) or a row test. */
  private term(c: Condition, lists: ListMembers, facts: MemberFacts | undefined): Uint32Array | ((row: number) => boolean) {
    switch (c.kind) {
      case 'field': {
        if (c.field !== 'company_id') return this.fieldTest(c.field, c.values);
        const rows = new Set<number>();
        // Ids as given, lower- and upper-cased (catalog ids are digits or one case).
        for (const id of [...c.raw, ...c.values, ...c.values.map((v) => v.toUpperCase())]) {
          const at = this.find(id);
          if (at >= 0) rows.add(at);
        }
        return ascending(rows);
      }
      case 'lists': {
        const union = new Set<number>();
        for (const id of c.ids) {
          const set = lists(id);
          if (set) for (const row of this.rowsOfList(set)) union.add(row);
        }
        return ascending(union);
      }
      case 'intent': {
        const scores = facts?.intentScores(c.intent.product);
        if (!scores) return new Uint32Array(0);
        const accepted = new Uint8Array(101);
        for (let s = 0; s <= 100; s++) accepted[s] = intentHolds(c.intent, s) ? 1 : 0;
        return (row) => accepted[scores[row]] === 1;
      }
      case 'visited':
        return facts?.visitedRows(c.pattern, c.visited.days) ?? new Uint32Array(0);
      case 'page_views':
        return facts?.pageViewRows(c.page_views.min, c.page_views.days) ?? new Uint32Array(0);
      case 'crm_owner':
      case 'crm_stage': {
        const byRow = facts?.crm ?? NO_CRM_ROWS;
        if (crmHolds(c, NO_CRM_FACTS)) return (row) => crmHolds(c, byRow.get(row) ?? NO_CRM_FACTS);
        const rows: number[] = [];
        for (const [row, crm] of byRow) if (crmHolds(c, crm)) rows.push(row);
        return ascending(rows);
      }
      case 'lookalike':
        return facts?.lookalikeRows?.(c.lookalike) ?? new Uint32Array(0);
      case 'engaged':
        return facts?.engagement?.engagedRows(c.engaged, c.pattern) ?? new Uint32Array(0);
      case 'event':
        return facts?.engagement?.eventRows(c.event) ?? new Uint32Array(0);
      case 'topic': {
        // Catalog data of this index's snapshot: the rule's members are cached with the others (no facts).
        const topics = builtFrom.get(this)?.topics;
        const from = topics ? topicWindowStart(c.topic, topics.latestWeek()) : null;
        if (!topics || from === null) return new Uint32Array(0);
        const rows: number[] = [];
        for (const id of topics.companiesScoring(c.topic.name, from, c.topic.min_score)) {
          const at = this.find(id);
          if (at >= 0) rows.push(at);
        }
        return ascending(rows);
      }
      case 'group':
        return this.evaluateLevel(c.level, lists, facts);
    }
  }

  /** Rows in every set that every test accepts (no set: every row of the catalog is a candidate). */
  private intersection(sets: Uint32Array[], tests: ((row: number) => boolean)[]): Uint32Array {
    let candidates: Uint32Array | null = null;
    for (const set of [...sets].sort((a, b) => a.length - b.length)) {
      if (candidates === null) candidates = set;
      else {
        const other = new Set(set);
        candidates = candidates.filter((row) => other.has(row));
      }
    }
    const out: number[] = [];
    const n = candidates ? candidates.length : this.size;
    outer: for (let i = 0; i < n; i++) {
      const row = candidates ? candidates[i] : i;
      for (const test of tests) if (!test(row)) continue outer;
      out.push(row);
    }
    return Uint32Array.from(out);
  }

  /** Rows in any set or accepted by any test. */
  private union(sets: Uint32Array[], tests: ((row: number) => boolean)[]): Uint32Array {
    if (tests.length === 0) {
      const rows = new Set<number>();
      for (const set of sets) for (const row of set) rows.add(row);
      return ascending(rows);
    }
    const marked = new Uint8Array(this.size);
    for (const set of sets) for (const row of set) marked[row] = 1;
    const out: number[] = [];
    for (let row = 0; row < this.size; row++) {
      if (marked[row] === 1 || tests.some((t) => t(row))) out.push(row);
    }
    return Uint32Array.from(out);
  }

  /** A row test for one field: its accepted dictionary entries marked once per column. */
  private fieldTest(field: MatchField, values: string[]): (row: number) => boolean {
    const rule = MATCH_FIELDS[field];
    const parts = rule.columns.map((name) => {
      const col = this.columns.get(name)!;
      const accepted = new Uint8Array(col.dict.length);
      col.dict.forEach((v, code) => {
        accepted[code] = valueMatches(rule, v, values) ? 1 : 0;
      });
      return { codes: col.codes, accepted };
    });
    if (parts.length === 1) {
      const [{ codes, accepted }] = parts;
      return (row) => accepted[codes[row]] === 1;
    }
    return (row) => parts.some((p) => p.accepted[p.codes[row]] === 1);
  }
}

/**
 * A rule's canonical form: each level's op and its conditions sorted, catalog values lower-cased, sorted
 * and unique, a list id with the version of the list it names (so an edited list is a new key).
 */
export function canonicalRule(match: SegmentMatch, lists: ListMembers = NO_LISTS): string {
  return canonicalLevel(ruleLevel(match), lists);
}

function canonicalLevel(level: Level, lists: ListMembers): string {
  return `${level.op}(${level.conditions
    .map((c) => canonicalCondition(c, lists))
    .sort()
    .join(',')})`;
}

function canonicalCondition(c: Condition, lists: ListMembers): string {
  switch (c.kind) {
    case 'field':
      return JSON.stringify([c.field, [...new Set(c.values)].sort()]);
    case 'lists':
      return JSON.stringify(['in_list', [...new Set(c.ids)].sort().map((id) => `${id}@${listVersion(lists(id))}`)]);
    case 'intent':
      return JSON.stringify(['intent', c.intent.product.toLowerCase(), [...(c.intent.stages ?? [])].sort(), c.intent.min_score ?? null]);
    case 'visited':
      return JSON.stringify(['visited', c.visited.path.toLowerCase(), c.visited.days]);
    case 'page_views':
      return JSON.stringify(['page_views', c.page_views.min, c.page_views.days]);
    case 'crm_owner':
      return JSON.stringify(['crm_owner', [...new Set(c.emails)].sort(), c.any, c.none]);
    case 'crm_stage':
      return JSON.stringify(['crm_stage', sortedSet(c.in), sortedSet(c.not_in)]);
    case 'lookalike': {
      const { list, segment, companies, min_score } = c.lookalike;
      return JSON.stringify(['lookalike', list ?? null, segment ?? null, companies ? [...new Set(companies)].sort() : null, min_score]);
    }
    case 'topic':
      return JSON.stringify(['topic', c.topic.name.toLowerCase(), c.topic.min_score, c.topic.weeks]);
    case 'engaged':
      return JSON.stringify(['engaged', c.engaged.path.toLowerCase(), c.engaged.min_seconds, c.engaged.days]);
    case 'event':
      return JSON.stringify(['event', c.event.name, c.event.min_count, c.event.days]);
    case 'group':
      return canonicalLevel(c.level, lists);
  }
}

const sortedSet = (values: readonly string[] | undefined) => (values ? [...new Set(values)].sort() : null);

const NO_CRM_ROWS: ReadonlyMap<number, CrmFacts> = new Map();

/** A set of rows, ascending. */
const ascending = (rows: Iterable<number>): Uint32Array => Uint32Array.from(rows).sort();

const versions = new WeakMap<ReadonlySet<string>, number>();
let nextVersion = 1;
/** A number per list version (Set), for cache keys; 0 for an unknown list. */
function listVersion(set: ReadonlySet<string> | undefined): number {
  if (!set) return 0;
  let v = versions.get(set);
  if (v === undefined) {
    v = nextVersion++;
    versions.set(set, v);
  }
  return v;
}

/** A snapshot's index: under way, then ready; meanwhile the index of the snapshot it replaced answers. */
interface IndexEntry {
  building: Promise<SegmentIndex>;
  ready: SegmentIndex | null;
  /** The build failed (a catalog closed under it): the next request starts it again. */
  failed: boolean;
  /** The replaced snapshot's entry, until this one is ready (then dropped, so its index can go). */
  previous: IndexEntry | null;
}

const indexes = new WeakMap<Catalog, IndexEntry>();
/** The catalog each index was built from: which snapshot its rows are of (the lookalike index's rows are the same companies). */
const builtFrom = new WeakMap<SegmentIndex, Catalog>();

/** The catalog a segment index was built from. */
export const segmentIndexCatalog = (index: SegmentIndex): Catalog | undefined => builtFrom.get(index);

function startBuild(catalog: Catalog, previous: IndexEntry | null): IndexEntry {
  const entry: IndexEntry = { building: SegmentIndex.build(catalog), ready: null, failed: false, previous };
  indexes.set(catalog, entry);
  entry.building.then(
    (index) => {
      entry.ready = index;
      entry.previous = null;
    },
    () => {
      entry.failed = true;
    },
  );
  return entry;
}

/** The newest ready index along the chain of replaced snapshots. */
function readyIndex(entry: IndexEntry | null): SegmentIndex | null {
  for (let e = entry; e; e = e.previous) if (e.ready) return e.ready;
  return null;
}

/**
 * Starts building a snapshot's index now (the dataset calls it when it opens a snapshot, at start-up and
 * on every reload), so no request waits for it; until it is ready, `segmentIndex` answers from the index
 * of `previous` (the snapshot it replaces).
 */
export function warmSegmentIndex(catalog: Catalog, previous?: Catalog): void {
  if (indexes.has(catalog)) return;
  // Awaited by requests (or never, for a snapshot replaced before anyone asked): not an unhandled rejection.
  startBuild(catalog, previous ? (indexes.get(previous) ?? null) : null).building.catch(() => {});
}

/**
 * The segment index to answer from for a snapshot's catalog: its own once built; while it is being built,
 * the replaced snapshot's (a preview during a reload answers at once, from the data it had a moment ago);
 * with neither (the first snapshot, still building), its build. A catalog nobody warmed is built on first use.
 */
export function segmentIndex(catalog: Catalog): Promise<SegmentIndex> {
  let entry = indexes.get(catalog);
  if (!entry || entry.failed) entry = startBuild(catalog, entry?.previous ?? null);
  const ready = readyIndex(entry);
  return ready ? Promise.resolve(ready) : entry.building;
}

/** The build of a catalog's own index if one was started (never starts one): what tests await. */
export function segmentIndexBuild(catalog: Catalog): Promise<SegmentIndex> | undefined {
  return indexes.get(catalog)?.building;
}
