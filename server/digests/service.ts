/**
 * Email digests: a user's settings, the digest a user would get (preview), and sending one period's digest
 * exactly once across every node and worker. A send claims the (user, period) in the state store (a lease
 * of DIGEST_LEASE_MS: a node that dies while sending lets it run out, and the next node to look takes it),
 * builds the digest, hands it to the mail server, and notes it sent only after the server accepted it. A
 * period with nothing to say ends without a mail. A mail server that refuses or is down is retried on the
 * next looks after a backoff (DIGEST_RETRY_BASE_MS doubling, at most DIGEST_RETRY_MAX_MS) until
 * DIGEST_MAX_ATTEMPTS or the end of the day the digest is sent on, then given up (logged). Only a node that
 * dies between the server's acceptance and its note can make a second mail: the same Message-ID then.
 */
import { hostname } from 'node:os';
import type { CustomerRecord } from '../../core/access-records.ts';
import { hashForAccount } from '../../core/console-links.ts';
import { DEFAULT_DIGEST_SETTINGS, type DigestSettings } from '../../core/digest-records.ts';
import type { UserRecord } from '../../core/user-records.ts';
import type { AccessRecords } from '../state/access/service.ts';
import type { AlertStateStore } from '../state/alerts/store.ts';
import type { DigestStore } from '../state/digests/store.ts';
import type { UserStore } from '../state/users/store.ts';
import { type DigestContent, type DigestSources, gatherDigest, nothingToSay, type PeriodReads, pagesFrom, readPeriod } from './content.ts';
import type { DigestMailer } from './mail.ts';
import { type DigestPeriod, duePeriod, lastPeriod, periodHolding } from './period.ts';
import { type RenderedDigest, renderDigest } from './render.ts';
import { digestKey, readUnsubscribeToken, unsubscribeToken } from './unsubscribe.ts';

/** How long a claim is held while its digest is built and handed to the mail server (SMTP gives up in 20 s at most). */
export const DIGEST_LEASE_MS = 2 * 60_000;
export const DIGEST_MAX_ATTEMPTS = 8;
export const DIGEST_RETRY_BASE_MS = 60_000;
export const DIGEST_RETRY_MAX_MS = 30 * 60_000;
/** Claims are kept this long after the day they could be sent on (then forgotten: the period is long over). */
const CLAIM_KEPT_MS = 14 * 86_400_000;

/** The wait before attempt n + 1 after n failed ones. */
export const retryDelayMs = (attempts: number) => Math.min(DIGEST_RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1), DIGEST_RETRY_MAX_MS);

export interface DigestDeps {
  store: DigestStore;
  users: Pick<UserStore, 'getUser' | 'listUsers'>;
  customers: Pick<AccessRecords, 'getCustomer' | 'getSetting' | 'setSettingIfAbsent'>;
  /** The served data snapshot: companies, intent signals, topics, and what lookalike seeds are scored over. */
  dataset: { readonly current: { readonly catalog: DigestSources['catalog'] } };
  visits: DigestSources['visits'];
  crm?: DigestSources['crm'];
  /** Engaged time and custom events, for segments with `engaged` or `event` conditions. */
  engagement?: DigestSources['engagement'];
  /** The owners list and territory rules (server/alerts/), for "my accounts". */
  owners?: Pick<AlertStateStore, 'ownerRows' | 'territories'>;
  /** Null without SVC_SMTP_URL: nothing is sent (previews still work). */
  mailer: DigestMailer | null;
  /** serverBaseUrl(config): the links in the mail. */
  baseUrl: string;
  now: () => number;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
  /** This node's name in the claims (default: host, process and a random part). */
  owner?: string;
}

/** What one send did. */
export type SendOutcome =
  | 'sent'
  | 'empty'
  /** Ended before (sent, empty or given up): never again. */
  | 'done'
  /** Another node holds the claim right now. */
  | 'busy'
  /** A retry not due yet. */
  | 'waiting'
  /** The mail server refused: tried again later within the day. */
  | 'retry'
  /** Given up for this period. */
  | 'failed'
  | 'no_smtp';

/** Reads of one sweep, shared by the users of a customer and period. */
type ReadCache = Map<string, Promise<PeriodReads>>;

export class Digests {
  readonly owner: string;
  /** (user, period) keys this node knows need no look until a time (ended: until the day is over). */
  private readonly quiet = new Map<string, number>();

  constructor(readonly deps: DigestDeps) {
    this.owner = deps.owner ?? `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  }

  async settingsOf(user: Pick<UserRecord, 'id' | 'customer_id'>): Promise<DigestSettings> {
    return (await this.deps.store.getSettings(user.customer_id, user.id))?.settings ?? DEFAULT_DIGEST_SETTINGS;
  }

  async putSettings(user: Pick<UserRecord, 'id' | 'customer_id'>, settings: DigestSettings): Promise<void> {
    await this.deps.store.putSettings({ customer_id: user.customer_id, user_id: user.id, settings, updated_at: new Date(this.deps.now()).toISOString() });
  }

  private async key(): Promise<Buffer> {
    return digestKey(this.deps.customers);
  }

  accountUrl(customerId: string, companyId: string): string {
    return `${this.deps.baseUrl}/console/${hashForAccount(customerId, companyId)}`;
  }

  async unsubscribeUrl(user: Pick<UserRecord, 'id' | 'customer_id'>): Promise<string> {
    return `${this.deps.baseUrl}/digest/unsubscribe?token=${unsubscribeToken(await this.key(), user.customer_id, user.id)}`;
  }

  settingsUrl(customerId: string): string {
    return `${this.deps.baseUrl}/console/#${new URLSearchParams({ customer: customerId, page: 'notifications' })}`;
  }

  /** The user a token names (still a user of that customer), or null. */
  async tokenUser(token: string): Promise<UserRecord | null> {
    const ids = readUnsubscribeToken(await this.key(), token);
    if (ids === null) return null;
    const user = await this.deps.users.getUser(ids.userId);
    return user && user.customer_id === ids.customerId ? user : null;
  }

  /** Turns the user's digest off; the settings before (null when it was off already: nothing changed). */
  async unsubscribe(user: UserRecord): Promise<DigestSettings | null> {
    const before = await this.settingsOf(user);
    if (before.digest === 'off') return null;
    await this.putSettings(user, { ...before, digest: 'off' });
    return before;
  }

  private sources(): DigestSources {
    const { visits, crm, engagement, owners } = this.deps;
    return { visits, catalog: this.deps.dataset.current.catalog, crm, engagement, owners };
  }

  /** The digest a user gets for a period (its content and the mail), built now. */
  async build(
    user: UserRecord,
    customer: CustomerRecord,
    settings: DigestSettings,
    period: DigestPeriod,
    cache?: ReadCache,
  ): Promise<{ content: DigestContent; mail: RenderedDigest }> {
    const sources = this.sources();
    const from = pagesFrom(customer, settings.scope, period);
    const readKey = `${customer.id}|${period.key}|${period.startMs}|${from}`;
    let reads = cache?.get(readKey);
    if (!reads) {
      reads = readPeriod(sources, customer.id, period, from);
      cache?.set(readKey, reads);
    }
    const content = await gatherDigest(sources, {
      customer,
      period,
      scope: settings.scope,
      email: user.email,
      reads: await reads,
      accountUrl: (id) => this.accountUrl(customer.id, id),
    });
    const mail = renderDigest(content, { unsubscribe: await this.unsubscribeUrl(user), settings: this.settingsUrl(customer.id) });
    return { content, mail };
  }

  /**
   * The digest of the user's last complete period (a daily one's yesterday, a weekly one's last week, or
   * `kind`'s), or of the period holding the local `date` (so far, for one not over yet).
   */
  async preview(user: UserRecord, kind?: 'day' | 'week', date?: string): Promise<{ content: DigestContent; mail: RenderedDigest }> {
    const customer = await this.deps.customers.getCustomer(user.customer_id);
    if (!customer) throw new Error(`unknown customer ${user.customer_id}`);
    const settings = await this.settingsOf(user);
    const which = kind ?? (settings.digest === 'weekly' ? 'week' : 'day');
    const period = date ? periodHolding(which, date, settings.time_zone) : lastPeriod(which, settings.time_zone, this.deps.now());
    return this.build(user, customer, settings, period);
  }

  /**
   * Sends the user's digest of `period` unless it was sent (or ended) already, by this node or another: the
   * claim decides. What happened is the answer; a mail server's refusal is not thrown.
   */
  async send(user: UserRecord, customer: CustomerRecord, settings: DigestSettings, period: DigestPeriod, cache?: ReadCache): Promise<SendOutcome> {
    const { store, mailer, log } = this.deps;
    if (mailer === null) return 'no_smtp';
    const nowMs = this.deps.now();
    const quietKey = `${customer.id}|${user.id}|${period.key}`;
    if ((this.quiet.get(quietKey) ?? 0) > nowMs) return 'done';
    const claim = await store.claim({
      customer_id: customer.id,
      user_id: user.id,
      period: period.key,
      owner: this.owner,
      nowMs,
      leaseMs: DIGEST_LEASE_MS,
      keepUntilMs: period.sendUntilMs + CLAIM_KEPT_MS,
    });
    if (claim.kind === 'done') this.quiet.set(quietKey, period.sendUntilMs);
    if (claim.kind === 'busy') this.quiet.set(quietKey, claim.untilMs);
    if (claim.kind === 'waiting') this.quiet.set(quietKey, claim.nextMs);
    if (claim.kind !== 'claimed') return claim.kind;
    const finish = (end: Parameters<DigestStore['finish']>[5], error?: string) =>
      store.finish(customer.id, user.id, period.key, this.owner, this.deps.now(), end, error);
    const at = { customer_id: customer.id, user_id: user.id, period: period.key, attempt: claim.attempts };
    try {
      const { content, mail } = await this.build(user, customer, settings, period, cache);
      if (nothingToSay(content)) {
        await finish({ status: 'empty' });
        this.quiet.set(quietKey, period.sendUntilMs);
        return 'empty';
      }
      await mailer.send({ to: user.email, digest: mail, unsubscribeUrl: await this.unsubscribeUrl(user), id: `${user.id}.${period.key}` });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const nextMs = this.deps.now() + retryDelayMs(claim.attempts);
      if (claim.attempts >= DIGEST_MAX_ATTEMPTS || nextMs >= period.sendUntilMs) {
        await finish({ status: 'failed' }, message);
        this.quiet.set(quietKey, period.sendUntilMs);
        log.warn({ ...at, err: message }, 'digest given up for this period');
        return 'failed';
      }
      await finish({ status: 'retry', nextMs }, message);
      this.quiet.set(quietKey, nextMs);
      log.warn({ ...at, err: message, retry_at: new Date(nextMs).toISOString() }, 'digest not sent, retried later');
      return 'retry';
    }
    // Accepted by the mail server: noted now. A lease lost meanwhile (a send slower than the lease) is logged.
    if (!(await finish({ status: 'sent' }))) log.warn(at, 'digest sent after its claim passed to another node');
    this.quiet.set(quietKey, period.sendUntilMs);
    log.info(at, 'digest sent');
    return 'sent';
  }

  /** One look at every user's settings: sends the digests that are due (the scheduler's tick). */
  async sweep(stopped: () => boolean = () => false): Promise<Partial<Record<SendOutcome, number>>> {
    const counts: Partial<Record<SendOutcome, number>> = {};
    if (this.deps.mailer === null) return counts;
    const nowMs = this.deps.now();
    for (const [k, until] of this.quiet) if (until <= nowMs) this.quiet.delete(k);
    const customers = new Map<string, CustomerRecord | null>();
    const cache: ReadCache = new Map();
    for (const s of await this.deps.store.allSettings()) {
      if (stopped()) break;
      const period = duePeriod(s.settings, nowMs);
      if (period === null || (this.quiet.get(`${s.customer_id}|${s.user_id}|${period.key}`) ?? 0) > nowMs) continue;
      try {
        if (!customers.has(s.customer_id)) customers.set(s.customer_id, await this.deps.customers.getCustomer(s.customer_id));
        const customer = customers.get(s.customer_id);
        const user = await this.deps.users.getUser(s.user_id);
        // A user removed since (or a customer gone): no digest.
        if (!customer || !user || user.customer_id !== s.customer_id) continue;
        const outcome = await this.send(user, customer, s.settings, period, cache);
        counts[outcome] = (counts[outcome] ?? 0) + 1;
      } catch (e) {
        this.deps.log.warn({ customer_id: s.customer_id, user_id: s.user_id, err: e instanceof Error ? e.message : String(e) }, 'digest not looked at');
      }
    }
    return counts;
  }
}
