/**
 * What a node does while the shared store (Redis) is unreachable, so the web tag keeps answering:
 *   - identification charges are made against a bounded local allowance per customer (at most
 *     `allowance` credits per customer and node per outage, and never more than the customer's last
 *     known remaining balance), each one appended to a journal file on local disk before the answer;
 *   - rate limits count in per-node windows, each node allowing ceil(limit / nodes) of a shared limit,
 *     `nodes` being the live nodes last seen in the shared store;
 *   - the journal is replayed when the store is back, exactly once (every charge carries an id the
 *     store remembers; a replay interrupted half-way is simply run again);
 *   - a charge sent to the store whose answer was lost is journaled too, under the id it was sent with,
 *     so the replay settles it either way: counted once if its request was answered as charged, taken
 *     back (and kept from counting later) if it was not.
 * Everything here is local to the process: decisions are synchronous, the journal write is an append.
 */

import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChargeOutcome, ChargeRequest, RateLimitHit, RateLimitRequest } from '../metering/service.ts';

export interface JournaledCharge {
  id: string;
  charge: ChargeRequest;
  /**
   * Sent to Redis when the connection dropped, so it may already be counted there: the replay then
   * counts it only if its ledger entry (which carries this id) is not in the ledger yet.
   */
  uncertain?: boolean;
  /**
   * Sent to Redis, its answer lost, its request answered without it (503, 402): the replay takes it back
   * if Redis counted it, and makes sure it can no longer count should it still run.
   */
  void?: boolean;
  /**
   * The data epoch of the store the charge was made against (redis/epoch.ts): a journal is replayed
   * only into that same data, never into a Redis that came back empty.
   */
  epoch?: string;
}

export interface OutageOptions {
  /** Folder of this node's journal files (local disk). */
  journalDir: string;
  /** Credits per customer a node may charge while the store is unreachable. */
  allowance: number;
}

const JOURNAL = /^(\d+)\.(jsonl|\d+\.replay)$/;

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class OutageMeter {
  /** Credits charged locally per customer since the last drained journal. */
  private readonly spent = new Map<string, number>();
  /** Last remaining balance the store reported, per customer, pool and period. */
  private readonly remaining = new Map<string, number>();
  /** Local windows: key → [window start, count]. */
  private readonly windows = new Map<string, [number, number]>();
  private readonly file: string;
  private replaySeq = 0;
  /** Live nodes sharing the store, as last seen there (rate limits are split by it). */
  nodes = 1;
  /** The data epoch of the store, written into every journaled charge. */
  epoch: string | null = null;

  constructor(private readonly opts: OutageOptions) {
    mkdirSync(opts.journalDir, { recursive: true });
    this.file = join(opts.journalDir, `${process.pid}.jsonl`);
  }

  /** Remembers what the store said is left, the bound of the next outage's allowance. */
  observe(req: ChargeRequest, outcome: ChargeOutcome): void {
    this.remaining.set(`${req.customer_id}|${req.pool}|${req.period}`, outcome.remaining);
  }

  /**
   * A charge made while the store is unreachable: the outcome, journaled, or null when the local
   * allowance is spent (the caller answers 503 + Retry-After).
   */
  charge(req: ChargeRequest, journal: { id?: string; uncertain?: boolean } = {}): ChargeOutcome | null {
    const known = this.remaining.get(`${req.customer_id}|${req.pool}|${req.period}`);
    if (known === 0) return { outcome: 'exhausted', remaining: 0 };
    const spent = this.spent.get(req.customer_id) ?? 0;
    const bound = Math.min(this.opts.allowance, known ?? Infinity);
    if (spent >= bound) return null;
    const entry: JournaledCharge = {
      id: journal.id ?? randomUUID(),
      charge: req,
      ...(journal.uncertain ? { uncertain: true } : {}),
      ...(this.epoch !== null ? { epoch: this.epoch } : {}),
    };
    // Written before the answer: a charge the client saw is in the file (survives a process crash), and
    // the caller awaits synced() before answering (survives an OS crash or power loss too).
    appendFileSync(this.file, JSON.stringify(entry) + '\n');
    this.spent.set(req.customer_id, spent + 1);
    if (known !== undefined) this.remaining.set(`${req.customer_id}|${req.pool}|${req.period}`, known - 1);
    return { outcome: 'charged', remaining: Math.max(0, (known ?? req.quota) - 1) };
  }

  /**
   * A charge sent to the store whose fate there is unknown, answered without the allowance: `answered`
   * (the request answered as charged: the replay counts it once) or not (503, 402: the replay takes it
   * back). Written like a charge — the caller awaits synced() before answering.
   */
  settleLater(req: ChargeRequest, id: string, answered: boolean): void {
    const entry: JournaledCharge = {
      id,
      charge: req,
      ...(answered ? { uncertain: true } : { void: true }),
      ...(this.epoch !== null ? { epoch: this.epoch } : {}),
    };
    appendFileSync(this.file, JSON.stringify(entry) + '\n');
  }

  private syncing: Promise<void> | null = null;

  /**
   * Resolves once every charge journaled so far is on stable storage: one fdatasync per event-loop turn
   * for all the charges of that turn (group commit), off the event loop (the thread pool waits for the disk).
   */
  synced(): Promise<void> {
    this.syncing ??= new Promise<void>((resolve, reject) =>
      setImmediate(() => {
        this.syncing = null;
        open(this.file, 'a')
          .then((fh) => fh.datasync().finally(() => fh.close()))
          .then(resolve, reject);
      }),
    );
    return this.syncing;
  }

  /**
   * Counts a request in this node's own windows, each limit split over the live nodes. As in the store,
   * a request refused by any counter counts against none, and reports the counts it would have made.
   */
  hitRateLimits(req: RateLimitRequest): RateLimitHit[] {
    const windowStart = req.nowMs - (req.nowMs % req.windowMs);
    if (this.windows.size > 100_000) this.windows.clear();
    const hits = req.counters.map(({ key, limit }) => {
      const share = Math.max(1, Math.ceil(limit / Math.max(1, this.nodes)));
      const w = this.windows.get(key);
      return { key, limit, share, count: w && w[0] === windowStart ? w[1] + 1 : 1 };
    });
    if (hits.every((h) => h.count <= h.share)) for (const h of hits) this.windows.set(h.key, [windowStart, h.count]);
    return hits.map(({ limit, share, count }) => ({
      allowed: count <= share,
      limit,
      remaining: Math.max(0, share - count),
      resetMs: windowStart + req.windowMs - req.nowMs,
    }));
  }

  /**
   * Takes the journal files to replay: this process's (renamed in one step, so later charges start a
   * new file) and those left by processes that are gone. Returns the batches, each with its file.
   * Charges made against another data epoch than `epoch` are moved aside to `<file>.orphaned` (kept for
   * the operator, never replayed): they belong to data this store no longer holds.
   */
  takeJournal(epoch: string | null = null): { file: string; charges: JournaledCharge[] }[] {
    const out: { file: string; charges: JournaledCharge[] }[] = [];
    for (const name of readdirSync(this.opts.journalDir)) {
      const m = JOURNAL.exec(name);
      if (!m) continue;
      const pid = Number(m[1]);
      if (pid !== process.pid && alive(pid)) continue;
      let file = join(this.opts.journalDir, name);
      if (m[2] === 'jsonl') {
        const taken = join(this.opts.journalDir, `${process.pid}.${Date.now()}${this.replaySeq++}.replay`);
        renameSync(file, taken);
        file = taken;
      }
      const charges = readFileSync(file, 'utf8')
        .split('\n')
        // A line cut short by a crash mid-append was never acknowledged: skipped.
        .flatMap((line) => {
          try {
            return line ? [JSON.parse(line) as JournaledCharge] : [];
          } catch {
            return [];
          }
        });
      const foreign = epoch === null ? [] : charges.filter((c) => c.epoch !== undefined && c.epoch !== epoch);
      if (foreign.length > 0) appendFileSync(`${file}.orphaned`, foreign.map((c) => JSON.stringify(c) + '\n').join(''));
      out.push({ file, charges: foreign.length > 0 ? charges.filter((c) => !foreign.includes(c)) : charges });
    }
    return out;
  }

  /** A replayed journal file is gone; the allowance starts over once nothing is left to replay. */
  drained(file: string): void {
    rmSync(file, { force: true });
  }

  resetAllowance(): void {
    this.spent.clear();
  }

  get hasJournal(): boolean {
    return readdirSync(this.opts.journalDir).some((n) => {
      const m = JOURNAL.exec(n);
      return m !== null && (Number(m[1]) === process.pid || !alive(Number(m[1])));
    });
  }
}
