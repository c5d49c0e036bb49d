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
 * into one string with offsets), built on first use in pages of 50k rows (the event loop is yielded
 * between pages), ~1–2 s; a concurrent request waits for the same build.
 *
 * `in_list` (the customer's account lists): a list's rows are looked up once per list version (a list is
 * an immutable array of the cached customer record; `ListMembers` gives one Set per version) and the
 * member cache is keyed by the rule and the versions of the lists it names, so a list edit is seen at once.
 */
import type { SegmentMatch } from '../../core/customer-records.ts';
import type { CompanyRow } from '../../data/sources/schema.ts';
import { BoundedCache } from '../cache/bounded-cache.ts';
import type { Catalog } from '../data/catalog.ts';
import { type ListMembers, MATCH_FIELDS, type MatchField, NO_LISTS, ruleFields, ruleLists, valueMatches } from './evaluate.ts';

/** The columns the index holds: every column a rule field reads, company_id apart. */
const INDEX_COLUMNS = [...new Set(Object.values(MATCH_FIELDS).flatMap((f) => f.columns))].filter((c) => c !== 'company_id') as (keyof CompanyRow)[];
const PAGE_ROWS = 50_000;
/** Rules whose members are kept per index (each at most 4 bytes per member). */
const MEMBER_CACHE_LIMIT = 512;

interface Column {
  /** Distinct values, lower-cased; code = position. */
  dict: string[];
  codes: Uint16Array | Uint32Array;
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

  /** Builds the index from the catalog in pages (yielding between them). */
  static async build(catalog: Catalog): Promise<SegmentIndex> {
    const ids: string[] = [];
    const dicts = INDEX_COLUMNS.map(() => new Map<string, number>());
    const codes: number[][] = INDEX_COLUMNS.map(() => []);
    let after = '';
    for (;;) {
      const page = catalog.companyColumns(['company_id', ...INDEX_COLUMNS], after, PAGE_ROWS);
      for (const row of page) {
        ids.push(row[0]);
        for (let c = 0; c < INDEX_COLUMNS.length; c++) {
          const v = (row[c + 1] ?? '').toLowerCase();
          const d = dicts[c];
          let code = d.get(v);
          if (code === undefined) {
            code = d.size;
            d.set(v, code);
          }
          codes[c].push(code);
        }
      }
      if (page.length < PAGE_ROWS) break;
      after = page[page.length - 1][0];
      await new Promise((r) => setImmediate(r));
    }
    const offsets = new Uint32Array(ids.length + 1);
    let total = 0;
    for (let i = 0; i < ids.length; i++) {
      offsets[i] = total;
      total += ids[i].length;
    }
    offsets[ids.length] = total;
    const columns = new Map<keyof CompanyRow, Column>();
    INDEX_COLUMNS.forEach((name, c) => {
      const dict = [...dicts[c].keys()];
      columns.set(name, { dict, codes: dict.length <= 0xffff ? Uint16Array.from(codes[c]) : Uint32Array.from(codes[c]) });
    });
    return new SegmentIndex(ids.join(''), offsets, columns, ids.length);
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
   * The member rows of a rule, ascending (company_id order); cached by the rule's canonical form and the
   * versions of the customer's lists it names (`in_list`; without lists, an `in_list` rule matches nothing).
   */
  membersOf(match: SegmentMatch, lists: ListMembers = NO_LISTS): Uint32Array {
    const listIds = ruleLists(match);
    const sets = listIds?.map((id) => lists(id));
    const key = sets ? `${canonicalRule(match)}|${sets.map(listVersion).join(',')}` : canonicalRule(match);
    return this.members.get(key) ?? this.members.set(key, this.evaluate(match, sets));
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

  private evaluate(match: SegmentMatch, lists: (ReadonlySet<string> | undefined)[] | undefined): Uint32Array {
    const fields = ruleFields(match);
    if (fields.length === 0 && lists === undefined) return new Uint32Array(0);
    // Candidate rows: the listed company ids when the rule names them, else every row.
    let candidates: Uint32Array | null = null;
    const ids = fields.find(([f]) => f === 'company_id');
    if (ids) {
      const rows = new Set<number>();
      // Ids as given, lower- and upper-cased (catalog ids are digits or one case).
      for (const id of [...(match.company_id ?? []), ...ids[1], ...ids[1].map((v) => v.toUpperCase())]) {
        const at = this.find(id);
        if (at >= 0) rows.add(at);
      }
      candidates = Uint32Array.from([...rows].sort((a, b) => a - b));
    }
    // `in_list`: only the rows of the lists named (their union), within the ids named when both are given.
    if (lists !== undefined) {
      const union = new Set<number>();
      for (const set of lists) if (set) for (const row of this.rowsOfList(set)) union.add(row);
      const inLists = Uint32Array.from(union).sort();
      candidates = candidates ? candidates.filter((row) => union.has(row)) : inLists;
    }
    const tests = fields.filter(([f]) => f !== 'company_id').map(([f, values]) => this.fieldTest(f, values));
    const out: number[] = [];
    const n = candidates ? candidates.length : this.size;
    outer: for (let i = 0; i < n; i++) {
      const row = candidates ? candidates[i] : i;
      for (const test of tests) if (!test(row)) continue outer;
      out.push(row);
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

/** A rule's canonical form: fields in a fixed order, values lower-cased, sorted and unique (`in_list` last, as given). */
export function canonicalRule(match: SegmentMatch): string {
  const fields: [string, string[]][] = ruleFields(match)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([f, values]) => [f, [...new Set(values)].sort()]);
  // In the order given: the member cache key appends the lists' versions in this order.
  const lists = ruleLists(match);
  if (lists !== undefined) fields.push(['in_list', lists]);
  return JSON.stringify(fields);
}

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

const indexes = new WeakMap<Catalog, Promise<SegmentIndex>>();

/** The segment index of a snapshot's catalog (built once per catalog, on first use). */
export function segmentIndex(catalog: Catalog): Promise<SegmentIndex> {
  let index = indexes.get(catalog);
  if (!index) {
    index = SegmentIndex.build(catalog);
    indexes.set(catalog, index);
    // A failed build (a catalog closed under it) is tried again by the next request.
    index.catch(() => indexes.delete(catalog));
  }
  return index;
}
