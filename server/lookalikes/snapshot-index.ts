/**
 * The lookalike index of a data snapshot: the columns the method reads (./method.ts FEATURE_COLUMNS),
 * dictionary-encoded (each row a small integer per column; the distinct values normalised once, with the
 * first spelling seen kept for people), rows in company_id text order — the order of the segment
 * membership index of the same catalog (server/segments/membership.ts), so a row is the same company in both.
 *
 * Scoring a seed against the whole catalog: its profile is counted from its rows' codes, each column's
 * distinct values are scored once by the method (`familyMatch`: a table of weight × similarity per code),
 * then every row adds up its columns' table entries (`thousandths`, the method's own sum), in slices that
 * give the event loop back every SLICE_MS. The scores of a seed (2 bytes a row) are kept per index for the
 * seeds asked last (SCORES_KEPT), keyed by the seed's rows, so a builder's previews and a segment's
 * membership ask once.
 *
 * Memory at 1M companies: ~2 MB per column (Uint16 codes) × 8 + the company ids (~12 MB packed into one
 * string with offsets). Built as soon as the dataset opens a snapshot (`warmLookalikeIndex`, beside the
 * segment index's warm-up), in short slices; until it is ready, the replaced snapshot's index answers, and
 * only the very first snapshot's requests wait for it.
 */
import type { CompanyRow } from '../../core/catalog-records.ts';
import { BoundedCache } from '../cache/bounded-cache.ts';
import type { Catalog } from '../data/catalog.ts';
import { FAMILIES, type FeatureColumn, familyMatch, normalise, type Profile, profileFromCounts } from './method.ts';

/** Rows read per SQLite statement, and how long a build or a scoring runs before it yields the event loop. */
const PAGE_ROWS = 1_000;
const SLICE_MS = 5;
/**
 * Rows scored between two looks at the clock: few, because a seed's first scoring runs in the interpreter
 * until the optimiser has compiled the loop (16,384 rows per look blocked it 60–140 ms on a busy 2-core machine; compiled, they
 * take under a millisecond), and the scans after it (`top`, `rowsAtLeast`) as many times more.
 */
const SCORE_CHUNK = 2_048;
const SCAN_CHUNK = 16_384;
/** Seeds whose scores are kept per index (2 bytes a row each: 2 MB at 1M companies). */
const SCORES_KEPT = 16;
const nextTurn = () => new Promise<void>((r) => setImmediate(r));

interface Column {
  /** Distinct values, normalised; code = position. */
  dict: string[];
  /** The first spelling seen of each (what a reason shows when no row is at hand). */
  spelling: string[];
  codes: Uint16Array | Uint32Array;
}

/** One column's dictionary (normalised values; a raw spelling seen before costs one Map lookup). */
class ColumnDictionary {
  readonly dict: string[] = [];
  readonly spelling: string[] = [];
  private readonly byRaw = new Map<string, number>();
  private readonly byValue = new Map<string, number>();

  code(raw: string | null): number {
    const r = raw ?? '';
    let code = this.byRaw.get(r);
    if (code === undefined) {
      const v = normalise(r);
      code = this.byValue.get(v);
      if (code === undefined) {
        code = this.dict.length;
        this.dict.push(v);
        this.spelling.push(r.trim());
        this.byValue.set(v, code);
      }
      this.byRaw.set(r, code);
    }
    return code;
  }
}

/** A seed scored against every row: scores in thousandths, and a histogram of the rows not in the seed. */
export interface SeedScores {
  profile: Profile;
  scores: Uint16Array;
  /** Rows of the seed (ascending). */
  seedRows: Uint32Array;
  /** How many rows outside the seed have each score (index = thousandths). */
  histogram: Uint32Array;
}

export class LookalikeIndex {
  private readonly scored = new BoundedCache<string, Promise<SeedScores>>(SCORES_KEPT);

  private constructor(
    /** The catalog the index was built from (a snapshot's identity). */
    readonly catalog: Catalog,
    /** Company ids joined, in company_id order; row i is ids.slice(offsets[i], offsets[i + 1]). */
    private readonly ids: string,
    private readonly offsets: Uint32Array,
    private readonly columns: readonly Column[],
    readonly size: number,
  ) {}

  /** Builds the index from the catalog in pages, yielding whenever a slice has run SLICE_MS. */
  static async build(catalog: Catalog): Promise<LookalikeIndex> {
    const dicts = FAMILIES.map(() => new ColumnDictionary());
    const codeChunks: Uint32Array[][] = FAMILIES.map(() => []);
    const idChunks: string[] = [];
    const lengthChunks: Uint32Array[] = [];
    let rows = 0;
    const select: (keyof CompanyRow)[] = ['company_id', ...FAMILIES.map((f) => f.column)];
    let after = '';
    let slice = performance.now();
    for (;;) {
      const page = catalog.companyColumns(select, after, PAGE_ROWS);
      const n = page.length;
      if (n > 0) {
        const ids = new Array<string>(n);
        const lengths = new Uint32Array(n);
        const chunks = FAMILIES.map(() => new Uint32Array(n));
        for (let i = 0; i < n; i++) {
          const row = page[i];
          ids[i] = row[0];
          lengths[i] = row[0].length;
          for (let c = 0; c < chunks.length; c++) chunks[c][i] = dicts[c].code(row[c + 1]);
        }
        idChunks.push(ids.join(''));
        lengthChunks.push(lengths);
        for (let c = 0; c < chunks.length; c++) codeChunks[c].push(chunks[c]);
        rows += n;
      }
      if (n < PAGE_ROWS) break;
      after = page[n - 1][0];
      if (performance.now() - slice >= SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    const offsets = new Uint32Array(rows + 1);
    let row = 0;
    let total = 0;
    for (const lengths of lengthChunks) {
      for (let i = 0; i < lengths.length; i++) {
        offsets[row++] = total;
        total += lengths[i];
      }
    }
    offsets[row] = total;
    const columns: Column[] = [];
    for (let c = 0; c < FAMILIES.length; c++) {
      await nextTurn();
      const { dict, spelling } = dicts[c];
      const codes = dict.length <= 0xffff ? new Uint16Array(rows) : new Uint32Array(rows);
      let at = 0;
      for (const chunk of codeChunks[c]) {
        codes.set(chunk, at);
        at += chunk.length;
      }
      columns.push({ dict, spelling, codes });
    }
    await nextTurn();
    return new LookalikeIndex(catalog, idChunks.join(''), offsets, columns, rows);
  }

  companyId(row: number): string {
    return this.ids.slice(this.offsets[row], this.offsets[row + 1]);
  }

  /** The row of a company id, or -1 when the catalog has no such company (text order, as SQLite's BINARY). */
  rowOf(companyId: string): number {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const id = this.companyId(mid);
      if (id < companyId) lo = mid + 1;
      else if (id > companyId) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /** The rows of these company ids the catalog holds, ascending and unique; the others are counted. */
  rowsOf(companyIds: Iterable<string>): { rows: Uint32Array; notFound: number } {
    const found = new Set<number>();
    let notFound = 0;
    for (const id of companyIds) {
      const row = this.rowOf(id);
      if (row >= 0) found.add(row);
      else notFound++;
    }
    return { rows: Uint32Array.from(found).sort(), notFound };
  }

  /** `rowsOf`, giving the event loop back every SLICE_MS: a list of 100,000 ids is 100,000 binary searches. */
  async rowsOfSliced(companyIds: Iterable<string>): Promise<{ rows: Uint32Array; notFound: number }> {
    const found = new Set<number>();
    let notFound = 0;
    let slice = performance.now();
    let n = 0;
    for (const id of companyIds) {
      const row = this.rowOf(id);
      if (row >= 0) found.add(row);
      else notFound++;
      if (++n % 1024 === 0 && performance.now() - slice >= SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    return { rows: Uint32Array.from(found).sort(), notFound };
  }

  /** A row's values of the method's columns (first spellings), for reasons without a catalog read. */
  featureRow(row: number): Record<FeatureColumn, string> {
    const out = {} as Record<FeatureColumn, string>;
    FAMILIES.forEach((f, c) => {
      const col = this.columns[c];
      out[f.column] = col.spelling[col.codes[row]];
    });
    return out;
  }

  /** The seed's profile, counted from its rows' codes. */
  profileOf(seedRows: Uint32Array): Profile {
    const counts = this.columns.map((col) => {
      const n = new Uint32Array(col.dict.length);
      for (let i = 0; i < seedRows.length; i++) n[col.codes[seedRows[i]]]++;
      return n;
    });
    return profileFromCounts((_f, c) => {
      const col = this.columns[c];
      const out: [string, number][] = [];
      counts[c].forEach((n, code) => {
        if (n > 0) out.push([col.dict[code], n]);
      });
      return out;
    }, seedRows.length);
  }

  /**
   * Every row's score against the seed of these rows (ascending, unique), in thousandths, computed in slices
   * that yield the event loop; kept for the seeds asked last.
   */
  scoresOf(seedRows: Uint32Array): Promise<SeedScores> {
    const key = seedKey(seedRows);
    const hit = this.scored.get(key);
    if (hit) return hit;
    // Pure work on the index's own arrays: it cannot fail, so what is kept is always an answer.
    return this.scored.set(key, this.score(seedRows));
  }

  private async score(seedRows: Uint32Array): Promise<SeedScores> {
    const profile = this.profileOf(seedRows);
    // Per family the method has something to say about: weight × similarity of each distinct value.
    const active: { table: Float64Array; codes: Uint16Array | Uint32Array }[] = [];
    FAMILIES.forEach((family, c) => {
      if (profile.families[c].seeds === 0) return;
      const col = this.columns[c];
      const table = new Float64Array(col.dict.length);
      for (let code = 0; code < col.dict.length; code++) table[code] = family.weight * familyMatch(profile, c, col.dict[code]).similarity;
      active.push({ table, codes: col.codes });
    });
    const scores = new Uint16Array(this.size);
    const histogram = new Uint32Array(1001);
    let slice = performance.now();
    for (let from = 0; from < this.size; from += SCORE_CHUNK) {
      const to = Math.min(this.size, from + SCORE_CHUNK);
      if (profile.weight > 0) {
        for (let row = from; row < to; row++) {
          // The method's own sum (`thousandths`), inlined: the same additions in the same order.
          let sum = 0;
          for (let a = 0; a < active.length; a++) sum += active[a].table[active[a].codes[row]];
          const q = Math.round((sum / profile.weight) * 1000);
          scores[row] = q;
          histogram[q]++;
        }
      } else histogram[0] += to - from;
      if (performance.now() - slice >= SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    for (const row of seedRows) histogram[scores[row]]--;
    return { profile, scores, seedRows, histogram };
  }

  /**
   * The `limit` rows most like the seed, its own rows left out: highest score first, equal scores in row
   * (company id) order. Two passes over the scores at most, in slices.
   */
  async top(seed: SeedScores, limit: number): Promise<number[]> {
    const { scores, histogram, seedRows } = seed;
    let threshold = 1000;
    let above = histogram[1000];
    while (threshold > 0 && above < limit) above += histogram[--threshold];
    const isSeed = new Set(seedRows);
    const picked: number[] = [];
    let slice = performance.now();
    for (let from = 0; from < this.size; from += SCAN_CHUNK) {
      const to = Math.min(this.size, from + SCAN_CHUNK);
      for (let row = from; row < to; row++) if (scores[row] >= threshold && !isSeed.has(row)) picked.push(row);
      if (performance.now() - slice >= SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    // Array.prototype.sort is stable: equal scores stay in row order.
    picked.sort((a, b) => scores[b] - scores[a]);
    return picked.slice(0, limit);
  }

  /** The rows (ascending) whose score is at least `min` thousandths, the seed's own left out, in slices. */
  async rowsAtLeast(seed: SeedScores, min: number): Promise<Uint32Array> {
    const { scores, seedRows } = seed;
    let count = 0;
    for (let q = Math.max(0, min); q <= 1000; q++) count += seed.histogram[q];
    const out = new Uint32Array(count);
    const isSeed = new Set(seedRows);
    let n = 0;
    let slice = performance.now();
    for (let from = 0; from < this.size; from += SCAN_CHUNK) {
      const to = Math.min(this.size, from + SCAN_CHUNK);
      for (let row = from; row < to; row++) if (scores[row] >= min && !isSeed.has(row)) out[n++] = row;
      if (performance.now() - slice >= SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    return n === count ? out : out.subarray(0, n);
  }
}

/** A key per seed (its rows): FNV-1a over the row numbers, with the count. */
function seedKey(rows: Uint32Array): string {
  let h = 0x811c9dc5;
  let g = 0x01000193;
  for (let i = 0; i < rows.length; i++) {
    h = Math.imul(h ^ rows[i], 0x01000193);
    g = Math.imul(g ^ rows[i], 0x85ebca6b) ^ (g >>> 13);
  }
  return `${rows.length}:${(h >>> 0).toString(36)}:${(g >>> 0).toString(36)}`;
}

/** A snapshot's index: under way, then ready; meanwhile the index of the snapshot it replaced answers. */
interface IndexEntry {
  building: Promise<LookalikeIndex>;
  ready: LookalikeIndex | null;
  failed: boolean;
  previous: IndexEntry | null;
}

const indexes = new WeakMap<Catalog, IndexEntry>();

function startBuild(catalog: Catalog, previous: IndexEntry | null): IndexEntry {
  const entry: IndexEntry = { building: LookalikeIndex.build(catalog), ready: null, failed: false, previous };
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

/**
 * Starts building a snapshot's index now (the dataset calls it when it opens a snapshot, at start-up and
 * on every reload); until it is ready, `lookalikeIndex` answers from the index of `previous`.
 */
export function warmLookalikeIndex(catalog: Catalog, previous?: Catalog): void {
  if (indexes.has(catalog)) return;
  startBuild(catalog, previous ? (indexes.get(previous) ?? null) : null).building.catch(() => {});
}

/**
 * The index to answer from for a snapshot's catalog: its own once built; while it is being built, the
 * replaced snapshot's; with neither, its build. A catalog nobody warmed is built on first use.
 */
export function lookalikeIndex(catalog: Catalog): Promise<LookalikeIndex> {
  let entry = indexes.get(catalog);
  if (!entry || entry.failed) entry = startBuild(catalog, entry?.previous ?? null);
  for (let e: IndexEntry | null = entry; e; e = e.previous) if (e.ready) return Promise.resolve(e.ready);
  return entry.building;
}

/** The build of a catalog's own index if one was started (never starts one): what tests await. */
export function lookalikeIndexBuild(catalog: Catalog): Promise<LookalikeIndex> | undefined {
  return indexes.get(catalog)?.building;
}
