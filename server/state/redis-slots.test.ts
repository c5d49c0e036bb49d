/**
 * Redis Cluster runs a script or a MULTI only when every key it touches hashes to one slot. This test
 * watches a real redis-server with MONITOR while the five Redis stores (state, visits, webhook outbox,
 * users, CRM) do their work — metering, access changes, page views, sightings, deliveries, sessions, audit,
 * CRM connections, pending accounts, leases and runs, export and import — and checks, with Redis Cluster's own CRC16 slot function (node-redis's), that:
 *   - every Lua script's declared keys AND the keys its commands really touch share one slot;
 *   - every MULTI … EXEC touches one slot;
 *   - no single command names keys of two slots (MGET, DEL k1 k2 …).
 * (redis-cluster.contract.test.ts then runs the stores on a real cluster, where a miss is a CROSSSLOT error.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type RedisClientType } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crmAccount, crmConnection, crmRun } from '../testing/crm-records.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { RedisCrmStore } from './crm/redis.ts';
import type { ChargeRequest } from './metering/service.ts';
import { RedisWebhookStore } from './outbox/redis.ts';
import { RedisStateStore } from './redis/store.ts';
import { RedisUserStore } from './users/redis.ts';
import { RedisVisitStore } from './visits/redis.ts';

const calculateSlot = createRequire(import.meta.url)('@redis/client/dist/lib/utils/calculate-slot.js').default as (key: string) => number;

/** The quoted arguments of one MONITOR line, unescaped (Redis writes `\"`, `\\`, `\n`, `\xNN` …). */
function monitorArgs(line: string): { source: string; args: string[] } | null {
  const head = /^\d+\.\d+ \[\d+ ([^\]]+)\] /.exec(line);
  if (!head) return null;
  const args: string[] = [];
  const re = /"((?:\\.|[^"\\])*)"/g;
  for (const m of line.slice(head[0].length).matchAll(re)) {
    args.push(
      m[1]!.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, e: string) =>
        e[0] === 'x' && e.length === 3
          ? String.fromCharCode(parseInt(e.slice(1), 16))
          : (({ n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' } as Record<string, string>)[e] ?? e),
      ),
    );
  }
  return { source: head[1]!, args };
}

interface Step {
  what: string;
  keys: string[];
}

let redis: RedisServer;
let admin: RedisClientType;
let monitor: RedisClientType;
const lines: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'svc-slots-'));

beforeAll(async () => {
  redis = await startRedisServer();
  admin = createClient({ url: redis.url }) as RedisClientType;
  monitor = createClient({ url: redis.url }) as RedisClientType;
  await admin.connect();
  await monitor.connect();
  await monitor.monitor((line) => lines.push(String(line)));
}, 20_000);
afterAll(async () => {
  await monitor?.close().catch(() => {});
  await admin?.close();
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

const keysCache = new Map<string, string[]>();
/** The keys of one command, as the server itself says (COMMAND GETKEYS). */
async function keysOf(args: string[]): Promise<string[]> {
  const name = args[0]!.toUpperCase();
  if (['MULTI', 'EXEC', 'PING', 'SELECT', 'HELLO', 'CLIENT', 'INFO', 'FLUSHALL', 'WAIT', 'MONITOR', 'SCRIPT', 'PUBLISH', 'AUTH'].includes(name)) return [];
  const id = JSON.stringify(args);
  const cached = keysCache.get(id);
  if (cached) return cached;
  let keys: string[] = [];
  try {
    keys = ((await admin.sendCommand(['COMMAND', 'GETKEYS', ...args])) as string[]).map(String);
  } catch {
    // A command without keys (SCAN, TIME …).
  }
  keysCache.set(id, keys);
  return keys;
}

/** Scripts (declared keys + what their commands touched), MULTI blocks and multi-key commands, from the MONITOR log. */
async function steps(log: string[]): Promise<Step[]> {
  const out: Step[] = [];
  const multis = new Map<string, Step>();
  let script: Step | null = null;
  for (const line of log) {
    const parsed = monitorArgs(line);
    if (!parsed || parsed.args.length === 0) continue;
    const { source, args } = parsed;
    const name = args[0]!.toUpperCase();
    if (source === 'lua') {
      if (script) script.keys.push(...(await keysOf(args)));
      continue;
    }
    script = null;
    if (name === 'EVAL' || name === 'EVALSHA') {
      const n = Number(args[2]);
      script = { what: `${name} ${args[1]!.slice(0, 60).replace(/\s+/g, ' ')}`, keys: args.slice(3, 3 + n) };
      const multi = multis.get(source);
      if (multi) multi.keys.push(...script.keys);
      out.push(script);
      continue;
    }
    if (name === 'MULTI') {
      multis.set(source, { what: 'MULTI', keys: [] });
      continue;
    }
    if (name === 'EXEC') {
      const m = multis.get(source);
      multis.delete(source);
      if (m) {
        m.what = `MULTI (${m.keys.length} keys: ${[...new Set(m.keys)].slice(0, 3).join(' ')} …)`;
        out.push(m);
      }
      continue;
    }
    const keys = await keysOf(args);
    const multi = multis.get(source);
    if (multi) multi.keys.push(...keys);
    else if (keys.length > 1) out.push({ what: args.slice(0, 3).join(' '), keys });
  }
  return out;
}

const charge = (customer: string, over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  customer_id: customer,
  api: 'company-firmographics-v3' as ChargeRequest['api'],
  pool: 'enrichment',
  record: '900001',
  period: 'year-0',
  quota: 100,
  dedupe_key: `${customer}|company-firmographics-v3|900001|2026-11`,
  month: '2026-11',
  token_id: null,
  partner: null,
  at: '2026-11-20T10:00:00.000Z',
  ...over,
});

describe('Redis keys and Redis Cluster slots', () => {
  it('every script, MULTI and multi-key command of the Redis stores touches one slot', async () => {
    const state = await RedisStateStore.open({ url: redis.url, journalDir: join(dir, 'journal'), outageAllowance: 10, log: () => {} });
    const visits = await RedisVisitStore.open(state.redis);
    const hooks = await RedisWebhookStore.open(state.redis);
    const users = new RedisUserStore(state.redis);
    const crm = new RedisCrmStore(state.redis);
    const customers = ['acme', 'globex', 'initech'];
    for (const id of customers) {
      await state.createCustomer({
        ...TEST_CUSTOMER,
        id,
        name: id,
        tags: [{ tag_id: `tag-${id}`, allowed_domains: [`www.${id}.test`], scores: false, segment_names: false }],
      } as never);
    }
    // Access records: tokens (create, rotate, status, delete), tags, settings, segments and lists (CAS scripts).
    const tok = await state.createToken({ customer_id: 'acme', api_group: 'identification', name: 'id', rate_limit: 100 } as never);
    await state.authenticateToken(tok.secret);
    await state.rotateToken(tok.record.id);
    await state.setTokenStatus(tok.record.id, 'inactive' as never);
    await state.deleteToken(tok.record.id);
    await state.createTag({ customer_id: 'globex', tag_id: 'tag-extra', allowed_domains: ['www.globex.test'] } as never);
    await state.updateTag('tag-extra', { allowed_domains: ['www2.globex.test'] } as never);
    await state.deleteTag('tag-extra');
    await state.setSettingIfAbsent('admin', 'x');
    await state.changeSegments('acme', (s) => s);
    await state.changeAccountLists('acme', (s) => ({ ...s, account_lists: [...s.account_lists, { id: 'l1', name: 'l1', company_ids: ['900001'] }] }) as never);
    await state.updateCustomer('initech', { name: 'Initech' } as never);
    // Metering, the batch of one turn across customers: rate limits and charges (with and without dedup, identification ids).
    const t = Date.now();
    await Promise.all(
      customers.flatMap((c) => [
        state.hitRateLimits({
          customer_id: c,
          counters: [
            { key: 'token:x', limit: 5 },
            { key: 'tag:y', limit: 9 },
          ],
          windowMs: 60_000,
          nowMs: t,
          degradable: true,
        }),
        state.charge(charge(c)),
        state.charge(charge(c, { pool: 'identification', api: 'identification', dedupe_key: null })),
      ]),
    );
    await state.usage('acme');
    await state.balance('acme', 'enrichment', 'year-0', 100);
    // Page views, sightings, segments of an account, the reads of the console.
    for (const c of customers) {
      await visits.recordPageView({
        customer_id: c,
        day: '2026-11-20',
        company_id: '900001',
        path: '/',
        session_id: 'session-aaaa',
        at: '2026-11-20T10:00:00.000Z',
      });
      await visits.recordPageView({
        customer_id: c,
        day: '2026-11-20',
        company_id: null,
        path: '/x',
        session_id: 'session-bbbb',
        at: '2026-11-20T10:00:01.000Z',
      });
      // A late view of the day before: Home's rollup looks up the account's other days (keys named in the script).
      await visits.recordPageView({ customer_id: c, day: '2026-11-19', company_id: '900001', path: '/', session_id: 's', at: '2026-11-19T23:59:00.000Z' });
      await visits.recordTagSighting(`tag-${c}`, `https://www.${c}.test`, '2026-11-20T10:00:00.000Z');
      await visits.swapAccountSegments(c, '900001', [1], '2026-11-20T10:00:00.000Z');
    }
    await visits.tagSightings(customers.map((c) => `tag-${c}`));
    await visits.accountVisits('acme', '2026-11-19', '2026-11-21');
    await visits.dailyTotals('acme', '2026-11-19', '2026-11-21');
    await visits.accountsPages('acme', '2026-11-19', '2026-11-21');
    await visits.accountSessions('acme', '900001');
    await visits.periodSummary('acme', '2026-11-19', '2026-11-21', 10);
    // The webhook outbox: endpoints, enqueue, claim, attempt, log.
    const ep = await hooks.createEndpoint({
      customer_id: 'acme',
      url: 'http://127.0.0.1:1/x',
      events: ['account.visited'],
      hot_paths: [],
      description: '',
      secret: 'whsec_0123456789abcdef',
    });
    await hooks.updateEndpoint('acme', ep.id, { description: 'changed' });
    const event = {
      id: 'evt_1',
      type: 'account.visited',
      created_at: '2026-11-23T10:00:00.000Z',
      customer_id: 'acme',
      data: {
        day: '2026-11-23',
        account: { company_id: '900001', name: null, domain: null, segment_ids: [], hot_account: false, excluded: false },
        page: { path: '/', referrer_host: null, tag_id: 't', origin: null, session_id: null },
      },
    };
    await hooks.enqueue([{ webhook_id: ep.id, customer_id: 'acme', dedupe_key: 'cap|/a', event, cap: { key: 'cap', max: 2 } } as never], t);
    const [claimed] = await hooks.claimDue(t, 5, 'node-a', 60_000);
    await hooks.recordAttempt(claimed!, 'node-a', { atMs: t + 1, status: 200, error: null, delivered: true, nextAttemptMs: null });
    await hooks.listDeliveries('acme', ep.id, 10);
    // Users, sessions, invitations, SSO, audit.
    const user = await users.createUser({ customer_id: 'acme', email: 'ann@acme.test', role: 'viewer', password_hash: 'scrypt$hash', sso: false });
    await users.setRole(user.id, 'admin');
    const at = new Date(t).toISOString();
    await users.createSession('hash-1', {
      id: 'ses_1',
      user_id: user.id,
      customer_id: 'acme',
      created_at: at,
      last_seen_at: at,
      expires_at: new Date(t + 86_400_000).toISOString(),
      ip: '203.0.113.7',
      user_agent: 'test',
      method: 'password',
    });
    await users.touchSession('hash-1', at, 3_600_000);
    await users.createInvitation('inv-1', {
      customer_id: 'acme',
      email: 'new@acme.test',
      role: 'marketer',
      purpose: 'invite',
      created_at: at,
      expires_at: new Date(t + 86_400_000).toISOString(),
      created_by: 'operator',
    });
    await users.consumeInvitation('inv-1', at);
    await users.appendAudit({ customer_id: 'acme', at, actor: 'operator', ip: null, action: 'user.role', target: null, before: null, after: null });
    await users.endSessions(user.id);
    await users.removeUser(user.id);
    // The CRM store: connections, pending accounts, the lease, runs and account records, of two customers.
    for (const c of ['acme', 'globex']) {
      await crm.putConnection({ record: crmConnection(c, 'hubspot'), secret: 'pat-secret' });
      await crm.updateConnection(c, 'hubspot', { status: 'paused' });
      await crm.markPending(c, 'hubspot', ['900001', '900002'], t, true);
      const [first] = await crm.pending(c, 'hubspot', 1);
      await crm.pending(c, 'hubspot', 10, first);
      await crm.ackPending(c, 'hubspot', [first!]);
      await crm.acquireLease(c, 'hubspot', 'node-a', t, 60_000);
      await crm.releaseLease(c, 'hubspot', 'node-a');
      await crm.putRun(crmRun('run_1', at, { customer_id: c }));
      await crm.listRuns(c, 'hubspot', 10);
      await crm.putAccounts([crmAccount('900001', { customer_id: c })]);
      await crm.listAccounts(c, 'hubspot', 10);
      await crm.getAccounts(c, 'hubspot', ['900001']);
      await crm.listConnections(c);
    }
    await crm.allConnections();
    await crm.putConnection({ record: (await crm.getConnection('globex', 'hubspot'))!, secret: 'x' });
    await crm.deleteConnection('globex', 'hubspot');
    // Export everything and import it into an empty database of the same server.
    const stateEntries = [];
    for await (const e of state.exportState()) stateEntries.push(e);
    const visitEntries = [];
    for await (const e of visits.exportEntries()) visitEntries.push(e);
    const hookEntries = [];
    for await (const e of hooks.exportEntries()) hookEntries.push(e);
    const userEntries = [];
    for await (const e of users.exportEntries()) userEntries.push(e);
    const crmEntries = [];
    for await (const e of crm.exportEntries()) crmEntries.push(e);
    expect(crmEntries.length).toBeGreaterThan(3);
    await admin.flushAll();
    const target = await RedisStateStore.open({ url: redis.url, journalDir: join(dir, 'journal-2'), outageAllowance: 10, log: () => {} });
    await target.importState(stateEntries);
    await (await RedisVisitStore.open(target.redis)).importEntries(visitEntries);
    await (await RedisWebhookStore.open(target.redis)).importEntries(hookEntries);
    await new RedisUserStore(target.redis).importEntries(userEntries);
    await new RedisCrmStore(target.redis).importEntries(crmEntries);
    // The last commands reach MONITOR before the check.
    await admin.ping();
    await new Promise((r) => setTimeout(r, 100));
    await target.close();
    await state.close();

    const seen = await steps(lines.slice());
    const crossing = seen
      .map((s) => ({ ...s, slots: [...new Set(s.keys.map(calculateSlot))] }))
      .filter((s) => s.slots.length > 1)
      .map((s) => `${s.what}: ${[...new Set(s.keys)].join(' ')}`);
    expect(crossing).toEqual([]);
    // The check saw the work: the metering, CAS, visit, outbox, user and CRM scripts, and MULTIs.
    const scripts = new Set(seen.filter((s) => s.what.startsWith('EVAL')).map((s) => s.what));
    expect(scripts.size).toBeGreaterThanOrEqual(10);
    expect(seen.filter((s) => s.what.startsWith('MULTI')).length).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it('1,000 customers spread evenly over 3 shards by their hash tag (the busiest within 1.2 × the mean)', () => {
    // `redis-cli --cluster create` gives 3 primaries equal slot ranges.
    const shardOf = (slot: number) => Math.min(2, Math.floor(slot / Math.ceil(16_384 / 3)));
    const counts = [0, 0, 0];
    for (let i = 0; i < 1000; i++) counts[shardOf(calculateSlot(`svc:{cust:customer-${i}}:customer`))]!++;
    expect(Math.max(...counts) / (1000 / 3)).toBeLessThanOrEqual(1.2);
    // Every key of a customer is on its shard.
    expect(new Set(['customer', 'ledger', 'used:identification:year-0', 'v:events'].map((k) => calculateSlot(`svc:{cust:acme}:${k}`))).size).toBe(1);
  });

  it('reads MONITOR lines with quotes, escapes and script sources', () => {
    expect(monitorArgs('1700000000.123456 [0 127.0.0.1:5555] "EVALSHA" "abc" "1" "svc:{cust:a\\"b}:x" "\\xe2\\x82"')).toEqual({
      source: '127.0.0.1:5555',
      args: ['EVALSHA', 'abc', '1', 'svc:{cust:a"b}:x', '\xe2\x82'],
    });
    expect(monitorArgs('1700000000.123456 [0 lua] "INCR" "k"')).toEqual({ source: 'lua', args: ['INCR', 'k'] });
  });
});
