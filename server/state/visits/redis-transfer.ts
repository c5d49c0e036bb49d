/**
 * Moving the Redis visit store's keys (`svc state export/import`, transfer.ts VisitEntry): SCAN a page at a
 * time (never KEYS: an export must not block a live Redis), and imports one MULTI per hash tag per batch.
 */
import type { RedisClientType } from '@redis/client';
import { StateError } from '../errors.ts';
import { scanKeys } from '../redis/connection.ts';
import { VisitEntry } from '../transfer/transfer.ts';
import type { VisitImportWriter } from './port.ts';
import type { RedisVisitStorage } from './redis.ts';
import { rollupArgs } from './redis-rollup.ts';
import { IMPORT_ACCOUNT_DAY } from './redis-rollup-scripts.ts';
import { SESSION_TTL_S, visitKeys } from './redis-scripts.ts';
import { visitImportErrors } from './service.ts';
import { formatRawViewId, formatSighting, ORIGINS_PER_TAG, parseRawViewId, parseSighting, type RawViewId, rawViewText, SESSIONS_PER_ACCOUNT } from './store.ts';

/** Patterns of every visit key. */
const ACCOUNT_KEYS = 'svc:{cust:*}:v:acct:*';
const ANONYMOUS_KEYS = 'svc:{cust:*}:v:anon';
const SIGHTING_KEYS = 'svc:tagseen:*';
const ACCOUNT_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:acct:(\d{4}-\d{2}-\d{2})$/;
const ANONYMOUS_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:anon$/;
const JOURNEY_KEYS = 'svc:{cust:*}:v:jrnm:*';
const JOURNEY_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:jrnm:(.+)$/;
const SEGMENT_KEYS = 'svc:{cust:*}:v:seg:*';
const SEGMENT_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:seg:(.+)$/;
const SEGMENT_ENTRY_KEYS = 'svc:{cust:*}:v:segin:*';
const SEGMENT_ENTRY_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:segin:(\d{4}-\d{2}-\d{2})$/;
const RAW_VIEW_KEYS = 'svc:{cust:*}:v:events';
const RAW_VIEW_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:events$/;
/** Stream entries one XRANGE of an export reads. */
const RAW_VIEW_PAGE = 1_000;
/** Entries an import sends in one MULTI (one round trip each, not one per entry). */
const IMPORT_BATCH = 200;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The MULTI of one hash tag in an import batch, with the reply indexes its checks read. */
interface ImportGroup {
  m: ReturnType<RedisClientType['multi']>;
  /** Reply index of each sighting's HLEN, and its tag. */
  lengths: [number, string][];
  /** Reply index of each journey's ZCARD, and its account (company, customer). */
  journeyCounts: [number, [string, string]][];
  replies: number;
}

/** The part of a key Redis Cluster hashes: its `{…}` hash tag, or the whole key. */
function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

export async function* exportVisitKeys(s: RedisVisitStorage): AsyncIterable<VisitEntry> {
  for await (const batch of scanKeys(s.client, ACCOUNT_KEYS)) {
    for (const key of batch.sort(byText)) {
      const match = ACCOUNT_KEY.exec(key);
      if (!match) continue;
      const [, customer, day] = match as unknown as [string, string, string];
      const companies = [...((await s.accountDays(customer, [day])).get(day) ?? new Map<string, Record<string, string>>())].sort(([a], [b]) => byText(a, b));
      if (companies.length === 0) continue;
      const m = s.client.multi();
      for (const [company] of companies) m.hGetAll(visitKeys.pages(customer, day, company)).sMembers(visitKeys.sessions(customer, day, company));
      const replies = (await s.timed(m.exec())) as unknown as (Record<string, string> | string[])[];
      for (const [i, [company, c]] of companies.entries()) {
        const pages = replies[2 * i] as Record<string, string>;
        yield VisitEntry.parse({
          type: 'visit_account',
          customer_id: customer,
          day,
          company_id: company,
          page_views: Number(c.views ?? 0),
          sessions: Number(c.sessions ?? 0),
          first_seen: c.first,
          last_seen: c.last,
          pages: Object.entries(pages ?? {})
            .map(([path, n]) => ({ path, page_views: Number(n) }))
            .sort((a, b) => byText(a.path, b.path)),
          session_ids: [...((replies[2 * i + 1] as string[]) ?? [])].sort(byText),
        });
      }
    }
  }
  for await (const batch of scanKeys(s.client, ANONYMOUS_KEYS)) {
    for (const key of batch.sort(byText)) {
      const customer = ANONYMOUS_KEY.exec(key)?.[1];
      if (!customer) continue;
      const days = await s.timed(s.client.hGetAll(key));
      for (const day of Object.keys(days).sort(byText))
        yield VisitEntry.parse({ type: 'visit_anonymous', customer_id: customer, day, page_views: Number(days[day]) });
    }
  }
  for await (const batch of scanKeys(s.client, JOURNEY_KEYS)) {
    for (const key of batch.sort(byText)) {
      const match = JOURNEY_KEY.exec(key);
      if (!match) continue;
      const [, customer, company] = match as unknown as [string, string, string];
      const ids = Object.keys(await s.timed(s.client.hGetAll(key))).sort(byText);
      for (const session of await s.sessionsOf(customer, company, ids)) {
        yield VisitEntry.parse({ type: 'visit_session', customer_id: customer, company_id: company, ...session });
      }
    }
  }
  // The key keeps no time, but every swap sets it to expire (retention + 1) days later: the time left
  // says when it was written. Rounded to the second: the TTL is read a round trip before the clock (an
  // import writes a whole second's expiry, which reads back as that second). Not capped at now: an
  // imported time moves as it was (a key written under a longer retention reads a little later, which
  // only keeps it longer); now for a key without TTL (set by hand).
  const segmentsLifeMs = (s.retention.days + 1) * 86_400_000;
  for await (const batch of scanKeys(s.client, SEGMENT_KEYS)) {
    const keys = batch.sort(byText).flatMap((key) => {
      const match = SEGMENT_KEY.exec(key);
      return match ? [[key, match[1]!, match[2]!] as const] : [];
    });
    // One MULTI per key (its own slot on a cluster): the value and its TTL of one moment.
    const replies = await s.timed(Promise.all(keys.map(([key]) => s.client.multi().get(key).pTTL(key).exec())));
    const now = Date.now();
    for (const [i, [, customer, company]] of keys.entries()) {
      const [value, ttl] = replies[i] as unknown as [string | null, number];
      // Gone since the SCAN (expired): nothing to move.
      if (value === null || ttl === -2) continue;
      const written = ttl < 0 ? now : now + ttl - segmentsLifeMs;
      yield VisitEntry.parse({
        type: 'visit_account_segments',
        customer_id: customer,
        company_id: company,
        segment_ids: JSON.parse(value),
        updated_at: new Date(Math.round(written / 1000) * 1000).toISOString(),
      });
    }
  }
  for await (const batch of scanKeys(s.client, SEGMENT_ENTRY_KEYS)) {
    const keys = batch.sort(byText).flatMap((key) => {
      const match = SEGMENT_ENTRY_KEY.exec(key);
      return match ? [[key, match[1]!, match[2]!] as const] : [];
    });
    // One GET per key (its own slot on a cluster).
    const counts = await s.timed(Promise.all(keys.map(([key]) => s.client.get(key))));
    for (const [i, [, customer, day]] of keys.entries()) {
      if (counts[i] !== null) yield VisitEntry.parse({ type: 'visit_segment_entries', customer_id: customer, day, entries: Number(counts[i]) });
    }
  }
  for await (const batch of scanKeys(s.client, SIGHTING_KEYS)) {
    for (const key of batch.sort(byText)) {
      const tag = key.slice(visitKeys.sightings('').length);
      const cells = await s.timed(s.client.hGetAll(key));
      for (const origin of Object.keys(cells).sort(byText))
        yield VisitEntry.parse({ type: 'tag_sighting', tag_id: tag, origin, ...parseSighting(cells[origin]!) });
    }
  }
  for await (const batch of scanKeys(s.client, RAW_VIEW_KEYS)) {
    for (const key of batch.sort(byText)) {
      if (!RAW_VIEW_KEY.test(key)) continue;
      for (let start = '-'; ; ) {
        const entries = (await s.timed(s.client.xRange(key, start, '+', { COUNT: RAW_VIEW_PAGE }))) ?? [];
        for (const e of entries) yield VisitEntry.parse({ type: 'visit_event', id: e.id, view: JSON.parse((e.message as Record<string, string>).v ?? 'null') });
        if (entries.length < RAW_VIEW_PAGE) break;
        start = `(${entries[entries.length - 1]!.id}`;
      }
    }
  }
}

export async function visitKeysEmpty(s: RedisVisitStorage): Promise<boolean> {
  for (const pattern of ['svc:{cust:*}:v:*', SIGHTING_KEYS]) {
    for await (const batch of scanKeys(s.client, pattern)) if (batch.length > 0) return false;
  }
  return true;
}

/** One import's writer: a customer's raw views must come in id order across its batches (a stream takes only growing ids). */
export function visitKeysImporter(s: RedisVisitStorage): VisitImportWriter {
  const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
  /** Each customer's last raw-view id imported: a stream takes only growing ids. */
  const lastRaw = new Map<string, RawViewId>();
  const write = async (batch: VisitEntry[]) => {
    // One MULTI per hash tag (a customer's keys, or one tag's sightings): in Redis Cluster a
    // transaction's keys share a slot.
    const groups = new Map<string, ImportGroup>();
    const scripts: Promise<unknown>[] = [];
    const group = (slotKey: string) => {
      const tag = hashTagOf(slotKey);
      let g = groups.get(tag);
      if (g === undefined) groups.set(tag, (g = { m: s.client.multi(), lengths: [], journeyCounts: [], replies: 0 }));
      return g;
    };
    for (const e of batch) {
      const g = group(
        e.type === 'tag_sighting' ? visitKeys.sightings(e.tag_id) : visitKeys.anonymous(e.type === 'visit_event' ? e.view.customer_id : e.customer_id),
      );
      const m = g.m;
      switch (e.type) {
        case 'visit_account': {
          const acct = visitKeys.account(e.customer_id, e.day);
          const pages = visitKeys.pages(e.customer_id, e.day, e.company_id);
          const sessions = visitKeys.sessions(e.customer_id, e.day, e.company_id);
          // A day's keys expire when a live write of that day would have let them (RECORD: a day late at most, plus the retention).
          const dayEnd = dayMs(e.day) + (s.retention.days + 2) * 86_400_000;
          // A script of its own: the counters with what is derived from them, as counting the day's views
          // live would have left it (not exported: an account's first day, the earliest of its days that
          // moved; Home's rollup and ranking).
          const [acctPrefix, dayPrefix, span, upTo] = rollupArgs(e.customer_id, e.day);
          scripts.push(
            s.run(
              IMPORT_ACCOUNT_DAY,
              [acct, visitKeys.firstSeen(e.customer_id), visitKeys.rollup(e.customer_id, e.day), visitKeys.rank(e.customer_id, e.day)],
              [
                e.company_id,
                String(e.page_views),
                String(e.sessions),
                e.first_seen,
                e.last_seen,
                String(dayEnd),
                String(dayMs(e.day) / 86_400_000),
                acctPrefix!,
                dayPrefix!,
                span!,
                upTo!,
                String((s.retention.days + 1) * 86_400),
              ],
            ),
          );
          if (e.pages.length > 0) {
            m.hSet(pages, new Map(e.pages.map((p) => [p.path, String(p.page_views)]))).pExpireAt(pages, dayEnd);
            g.replies += 2;
          }
          if (e.session_ids.length > 0) {
            m.sAdd(sessions, e.session_ids).pExpireAt(sessions, dayMs(e.day) + 86_400_000 + SESSION_TTL_S * 1000);
            g.replies += 2;
          }
          break;
        }
        case 'visit_anonymous':
          m.hSet(visitKeys.anonymous(e.customer_id), e.day, e.page_views).expire(visitKeys.anonymous(e.customer_id), (s.retention.days + 1) * 86_400);
          g.replies += 2;
          break;
        case 'visit_segment_entries': {
          // As the day's other keys (a swap of that day would have let it live as long).
          const end = dayMs(e.day) + (s.retention.days + 2) * 86_400_000;
          if (end > Date.now()) {
            m.set(visitKeys.segmentEntries(e.customer_id, e.day), String(e.entries), { expiration: { type: 'PXAT', value: end } });
            g.replies += 1;
          }
          break;
        }
        case 'visit_session': {
          const zset = visitKeys.journeys(e.customer_id, e.company_id);
          const meta = visitKeys.journeyMeta(e.customer_id, e.company_id);
          const list = visitKeys.journeyPages(e.customer_id, e.company_id, e.session_id);
          // As a live write of its latest view would have let them live.
          const end = Date.parse(e.last_seen) + (s.retention.days + 1) * 86_400_000;
          m.hSet(meta, e.session_id, `${e.first_seen}|${e.last_seen}|${e.page_views}`).zAdd(zset, { score: Date.parse(e.last_seen), value: e.session_id });
          g.replies += 2;
          if (e.pages.length > 0) {
            m.rPush(
              list,
              e.pages.map((p) => `${p.at}\t${p.path}`),
            ).pExpireAt(list, end);
            g.replies += 2;
          }
          m.pExpireAt(zset, end).pExpireAt(meta, end).zCard(zset);
          g.journeyCounts.push([g.replies + 2, [e.company_id, e.customer_id]]);
          g.replies += 3;
          break;
        }
        case 'visit_account_segments': {
          // As a live swap at `updated_at` would have let it live; one already past that is gone, as it would be.
          const end = Date.parse(e.updated_at) + (s.retention.days + 1) * 86_400_000;
          if (end > Date.now()) {
            m.set(visitKeys.segments(e.customer_id, e.company_id), JSON.stringify(e.segment_ids), { expiration: { type: 'PXAT', value: end } });
            g.replies += 1;
          }
          break;
        }
        case 'visit_event': {
          const { first_of_day_for_account: first, ...view } = e.view;
          const id = parseRawViewId(e.id)!;
          const last = lastRaw.get(view.customer_id);
          if (last !== undefined && (id.ms < last.ms || (id.ms === last.ms && id.n <= last.n))) {
            throw new StateError(`raw page views of ${view.customer_id}: id ${e.id} after ${formatRawViewId(last)} (a customer's views come in id order)`);
          }
          lastRaw.set(view.customer_id, id);
          const key = visitKeys.rawViews(view.customer_id);
          // As a live write of this view would have let the stream live.
          m.xAdd(key, e.id, { d: view.day, v: rawViewText(view, first) }).pExpireAt(key, id.ms + (s.retention.rawDays + 1) * 86_400_000);
          g.replies += 2;
          break;
        }
        case 'tag_sighting':
          m.hSet(visitKeys.sightings(e.tag_id), e.origin, formatSighting({ last_seen_at: e.last_seen_at, hits: e.hits })).hLen(visitKeys.sightings(e.tag_id));
          g.lengths.push([g.replies + 1, e.tag_id]);
          g.replies += 2;
          break;
      }
    }
    // No deadline for the whole batch: a big import is many commands, each answered in its turn.
    await Promise.all(scripts);
    for (const { m, lengths, journeyCounts } of groups.values()) {
      const out = (await m.exec()) as unknown as number[];
      for (const [i, tag] of lengths) if (Number(out[i]) > ORIGINS_PER_TAG) throw visitImportErrors.tooManyOrigins(tag, ORIGINS_PER_TAG);
      for (const [i, [company, customer]] of journeyCounts) {
        if (Number(out[i]) > SESSIONS_PER_ACCOUNT) throw visitImportErrors.tooManySessions(company, customer, SESSIONS_PER_ACCOUNT);
      }
    }
  };
  return { batchSize: IMPORT_BATCH, write };
}
