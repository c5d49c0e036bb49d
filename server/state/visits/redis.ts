/**
 * The visit store on Redis (several nodes): one Lua script per page view, so counts, sessions and
 * first/last seen change atomically. Keys of one customer carry its hash tag `{cust:<id>}` (as the state
 * store's), so each script touches one slot in Redis Cluster; a tag's sightings are one key.
 *
 * The key layout is listed with the keys (redis-scripts.ts visitKeys).
 *
 * Retention: every write sets the per-day keys (and the anon hash) to expire VISIT_RETENTION_DAYS plus a
 * day after it, so keys written before this rule existed get their TTL with their next write; the anon
 * hash, one field per day, drops the days past the retention on the first anonymous view of each day.
 * The raw-view stream has its own retention (`rawRetentionDays`, SVC_EVENTS_RETENTION_DAYS): every XADD
 * trims it with `MINID ~` to the first kept day by Redis's clock (`~`: whole stream nodes of ≤ 100 entries
 * go, so up to about 100 entries past the bound remain) and sets the key to expire a day after the retention, so a
 * customer's stream holds the views of the retention and an idle one disappears.
 *
 * The scripts and keys are in redis-scripts.ts (Home's rollup: redis-rollup-scripts.ts), the reads in
 * redis-reads.ts and redis-rollup.ts, export and import in redis-transfer.ts.
 *
 * Every command has a deadline: a stalled Redis (stopped, partitioned without RST) keeps the connection
 * "ready" and node-redis would wait for ever, holding the page view (and its NDJSON line) with it.
 */
import { createHash } from 'node:crypto';
import { createClient, type RedisClientType } from '@redis/client';
import type { AccountSession, DailyTotals, TagSighting } from '../../../core/visit-records.ts';
import { StoreUnavailableError } from '../errors.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS, retryTryAgain } from '../redis/connection.ts';
import type { VisitEntry } from '../transfer/transfer.ts';
import type { VisitImportWriter, VisitPort, VisitRetention } from './port.ts';
import { RedisCoverage } from './redis-coverage.ts';
import {
  readAccountDays,
  readAccountPages,
  readAccountsPages,
  readAccountTotals,
  readAccountVisits,
  readDailyTotals,
  readFirstSeenDays,
  readNewAccounts,
  readRawViews,
  readSegmentEntries,
  readSessions,
  readSessionsOf,
  readTagSightings,
} from './redis-reads.ts';
import { readAccountDayViews, readAccountsTotals, readRankedAccounts, readRollupDays, rollupArgs } from './redis-rollup.ts';
import { KEEP, RECORD, SESSION_TTL_S, SIGHT, SWAP, visitKeys } from './redis-scripts.ts';
import { exportVisitKeys, visitKeysEmpty, visitKeysImporter } from './redis-transfer.ts';
import { dayNumber, type RollupDay } from './rollup.ts';
import { VisitService, type VisitStoreOptions, visitRetention } from './service.ts';
import {
  type AccountPagePerDay,
  type AccountTotals,
  type AccountVisits,
  type KeptRawView,
  ORIGINS_PER_TAG,
  OTHER_PATHS,
  PAGES_PER_SESSION,
  PATHS_PER_ACCOUNT_DAY,
  type PagePerDay,
  type PageViewCount,
  type RawPageView,
  type RawViewQuery,
  type RawViewScan,
  rawViewParts,
  retainedFrom,
  SESSIONS_PER_ACCOUNT,
  SESSIONS_PER_ACCOUNT_DAY,
  type SightingBounds,
} from './store.ts';
import type { RankedPage, RankedRead } from './top-accounts.ts';

export { visitKeys } from './redis-scripts.ts';

const sha = (script: string) => createHash('sha1').update(script).digest('hex');

/** Storage only (port.ts): the scripts run with the bounds and cutoffs decided by the service. */
export class RedisVisitStorage implements VisitPort {
  private closed = false;

  constructor(
    readonly connection: RedisClientType,
    /** Whether the client is this store's own (opened from a URL): closed with it. */
    private readonly owned: boolean,
    readonly retention: VisitRetention,
    private readonly commandTimeoutMs: number,
  ) {}

  /** keep_raw's arguments after the view's time and parts: its day, the retention (ms), the stream's TTL (s). */
  private rawBounds(day: string): [string, string, string] {
    return [
      day,
      String(this.retention.rawDays * 86_400_000),
      // As the aggregates: a day longer than the retention, so the last write's views outlive it.
      String((this.retention.rawDays + 1) * 86_400),
    ];
  }

  /** The client while open: a closed store refuses, even while the shared client still serves the state store. */
  get client(): RedisClientType {
    if (this.closed) throw new StoreUnavailableError('the visit store is closed');
    return this.connection;
  }

  /** The answer within the command deadline, or StoreUnavailableError (the command may still run later). */
  timed<T>(p: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new StoreUnavailableError(`Redis did not answer within ${this.commandTimeoutMs} ms`)), this.commandTimeoutMs);
      p.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  /** One script within the command deadline (its source sent once to a Redis that does not know it). */
  run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return this.timed(
      retryTryAgain(async () => {
        try {
          return await this.client.evalSha(sha(script), { keys, arguments: args });
        } catch (e) {
          if (!String((e as Error).message).startsWith('NOSCRIPT')) throw e;
          return this.client.eval(script, { keys, arguments: args });
        }
      }),
    );
  }

  async count(v: PageViewCount): Promise<boolean> {
    const company = v.company_id ?? '';
    const raw = v.raw === undefined ? null : rawViewParts(v.raw);
    const reply = await this.run(
      RECORD,
      [
        visitKeys.account(v.customer_id, v.day),
        visitKeys.pages(v.customer_id, v.day, company),
        visitKeys.sessions(v.customer_id, v.day, company),
        visitKeys.anonymous(v.customer_id),
        visitKeys.journeys(v.customer_id, company),
        visitKeys.journeyMeta(v.customer_id, company),
        visitKeys.journeyPages(v.customer_id, company, v.session_id),
        visitKeys.rawViews(v.customer_id),
        visitKeys.firstSeen(v.customer_id),
        visitKeys.unidentified(v.customer_id, v.day),
        visitKeys.rollup(v.customer_id, v.day),
        visitKeys.rank(v.customer_id, v.day),
      ],
      [
        company,
        v.day,
        v.path,
        v.session_id,
        v.at,
        String(PATHS_PER_ACCOUNT_DAY),
        OTHER_PATHS,
        String(SESSION_TTL_S),
        String(SESSIONS_PER_ACCOUNT_DAY),
        // A day's keys outlive the retention by a day: the last write of a day comes at most a day late.
        String((this.retention.days + 1) * 86_400),
        retainedFrom(v.day, this.retention.days),
        String(Date.parse(v.at)),
        String(PAGES_PER_SESSION),
        String(SESSIONS_PER_ACCOUNT),
        visitKeys.journeyPages(v.customer_id, company, ''),
        String(Date.parse(`${retainedFrom(v.day, this.retention.days)}T00:00:00Z`)),
        raw?.head ?? '',
        raw?.tail ?? '',
        ...this.rawBounds(v.day),
        String(dayNumber(v.day)),
        v.unidentified_reason ?? '',
        ...rollupArgs(v.customer_id, v.day),
      ],
    );
    return Number(reply) === 1;
  }

  async keepRaw(view: RawPageView): Promise<void> {
    const { head, tail } = rawViewParts(view);
    await this.run(
      KEEP,
      [visitKeys.rawViews(view.customer_id)],
      [String(Date.parse(view.at)), head, view.first_of_day_for_account ? '1' : '0', tail, ...this.rawBounds(view.day)],
    );
  }

  // Reads: redis-reads.ts and redis-rollup.ts.
  rawViews(customerId: string, q: RawViewQuery, scan: RawViewScan): AsyncIterable<KeptRawView> {
    return readRawViews(this, customerId, q, scan);
  }

  /** Each day's account hash: company → its counters (the export reads them too). */
  accountDays(customerId: string, days: string[]): Promise<Map<string, Map<string, Record<string, string>>>> {
    return readAccountDays(this, customerId, days);
  }

  accountTotals(customerId: string, from: string, to: string): Promise<AccountTotals[]> {
    return readAccountTotals(this, customerId, from, to);
  }

  newAccounts(customerId: string, from: string, to: string): Promise<number> {
    return readNewAccounts(this, customerId, from, to);
  }

  firstSeenDays(customerId: string, companyIds: readonly string[]): Promise<(string | null)[]> {
    return readFirstSeenDays(this, customerId, companyIds);
  }

  segmentEntries(customerId: string, from: string, to: string): Promise<number> {
    return readSegmentEntries(this, customerId, from, to);
  }

  accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]> {
    return readAccountVisits(this, customerId, from, to);
  }

  dailyTotals(customerId: string, from: string, to: string): Promise<DailyTotals[]> {
    return readDailyTotals(this, customerId, from, to);
  }

  rollupDays(customerId: string, from: string, to: string): Promise<RollupDay[]> {
    return readRollupDays(this, customerId, from, to);
  }

  rankedAccounts(customerId: string, reads: readonly RankedRead[]): Promise<RankedPage[]> {
    return readRankedAccounts(this, customerId, reads);
  }

  accountDayViews(customerId: string, pairs: readonly { company_id: string; day: string }[]): Promise<number[]> {
    return readAccountDayViews(this, customerId, pairs);
  }

  accountsTotals(customerId: string, companyIds: readonly string[], days: readonly string[]): Promise<AccountTotals[]> {
    return readAccountsTotals(this, customerId, companyIds, days);
  }

  accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]> {
    return readAccountPages(this, customerId, companyId, from, to);
  }

  accountsPages(customerId: string, from: string, to: string): Promise<AccountPagePerDay[]> {
    return readAccountsPages(this, customerId, from, to);
  }

  sessions(customerId: string, companyId: string, keptFrom: string): Promise<AccountSession[]> {
    return readSessions(this, customerId, companyId, keptFrom);
  }

  /** The sessions' meta and pages (a session pushed out meanwhile is left out; the export reads them too). */
  sessionsOf(customerId: string, companyId: string, ids: string[]): Promise<AccountSession[]> {
    return readSessionsOf(this, customerId, companyId, ids);
  }

  tagSightings(tagIds: readonly string[]): Promise<TagSighting[]> {
    return readTagSightings(this, tagIds);
  }

  async sight(tagId: string, origin: string, at: string, { stale, settled }: SightingBounds): Promise<boolean> {
    return Number(await this.run(SIGHT, [visitKeys.sightings(tagId)], [origin, at, String(ORIGINS_PER_TAG), stale, settled])) === 1;
  }

  async swapSegments(customerId: string, companyId: string, segmentIds: readonly number[], at: string): Promise<number[] | null> {
    // One script: the swap and the day's entries; the keys live as long as the aggregates of a day written now.
    const ttl = String((this.retention.days + 1) * 86_400);
    const before = await this.run(
      SWAP,
      [visitKeys.segments(customerId, companyId), visitKeys.segmentEntries(customerId, at.slice(0, 10))],
      [JSON.stringify(segmentIds), ttl, ttl],
    );
    return typeof before === 'string' ? (JSON.parse(before) as number[]) : null;
  }

  exportEntries(): AsyncIterable<VisitEntry> {
    return exportVisitKeys(this);
  }

  isEmpty(): Promise<boolean> {
    return visitKeysEmpty(this);
  }

  importer(): VisitImportWriter {
    return visitKeysImporter(this);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.owned) await this.connection.close();
  }
}

export interface RedisVisitStoreOptions extends VisitStoreOptions {
  /** How long a command may go unanswered (SVC_REDIS_TIMEOUT_MS; DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
}

/** The visit store on Redis: the service over this storage. */
export class RedisVisitStore extends VisitService {
  /** The client it stores on (the state store's, or its own). */
  readonly connection: RedisClientType;

  private constructor(connection: RedisClientType, owned: boolean, options: RedisVisitStoreOptions) {
    const retention = visitRetention(options);
    const storage = new RedisVisitStorage(connection, owned, retention, options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS);
    super(storage, retention, new RedisCoverage(storage));
    this.connection = connection;
  }

  /**
   * On the state store's client (what backend.ts passes), left open on close;
   * or on a client of its own from a URL (tests, tools), closed with the store.
   */
  static async open(source: string | RedisClientType, options: RedisVisitStoreOptions = {}): Promise<RedisVisitStore> {
    if (typeof source !== 'string') return new RedisVisitStore(source, false, options);
    const url = source;
    const client = createClient({
      url,
      // While Redis is down commands fail at once (a lookup must not wait on its page-view input).
      disableOfflineQueue: true,
      socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000) },
    }) as RedisClientType;
    // Errors surface on the commands (the recorder logs a view it could not count); no unhandled event.
    client.on('error', () => {});
    await client.connect();
    return new RedisVisitStore(client, true, options);
  }
}
