/**
 * `svc state export` / `svc state import` as operators run them (real processes): SQLite → Redis →
 * SQLite loses nothing, and the CLI works against Redis through SVC_REDIS_URL.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { startRedisServer, type RedisServer } from '../testing/redis-server.ts';
import { SqliteStateStore } from '../state/sqlite-store.ts';
import type { StateEntry } from '../state/transfer.ts';

const run = promisify(execFile);
let dir: string;
let redis: RedisServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-state-cli-'));
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

const svc = async (env: Record<string, string>, ...args: string[]) =>
  JSON.parse((await run(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args, '--json'], { env: { ...process.env, SVC_LOG: 'silent', ...env } })).stdout);
const lines = (file: string): StateEntry[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

it('moves all state from SQLite to Redis and back without losing anything', async () => {
  const first = new SqliteStateStore(join(dir, 'first.db'), { log: () => {} });
  await first.importCustomer(TEST_CUSTOMER);
  await first.importCustomer({ ...TEST_CUSTOMER, id: 'globex', name: 'Globex', tags: [] });
  const { secret } = await first.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', allowed_domains: ['acme.test'] });
  await first.createToken({ customer_id: 'globex', api_group: 'lead-scoring', name: 'scoring' });
  await first.setSettingIfAbsent('admin_token_hash', 'abc');
  const base = { customer_id: 'acme', period: 'year-0', quota: 100, month: '2026-11', token_id: null, at: '2026-11-10T00:00:00.000Z' } as const;
  await first.charge({ ...base, api: 'identification', pool: 'identification', record: '23.10.1.20', dedupe_key: null, partner: null });
  await first.charge({ ...base, api: 'company-firmographics-v3', pool: 'enrichment', record: '900001', dedupe_key: 'acme|company-firmographics-v3|900001|2026-11', partner: 'p1' });
  await first.close();

  const sqlite = { SVC_STATE: join(dir, 'first.db') };
  const viaRedis = { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: join(dir, 'journal') };
  const exported = await svc(sqlite, 'state', 'export', join(dir, 'one.jsonl'));
  expect(exported.entries).toBe(lines(join(dir, 'one.jsonl')).length);
  expect((await svc(viaRedis, 'state', 'import', join(dir, 'one.jsonl'))).entries).toBe(exported.entries);
  // The CLI reads Redis like SQLite.
  const credits = await svc(viaRedis, 'credits', 'show', '--customer', 'acme');
  expect(credits.usage).toEqual(expect.arrayContaining([expect.objectContaining({ api: 'identification', charges: 1 }), expect.objectContaining({ api: 'company-firmographics-v3', charges: 1, partner_charges: 1 })]));
  await svc(viaRedis, 'state', 'export', join(dir, 'two.jsonl'));
  expect(lines(join(dir, 'two.jsonl'))).toEqual(lines(join(dir, 'one.jsonl')));

  const back = new SqliteStateStore(join(dir, 'back.db'), { log: () => {} });
  await back.importState(lines(join(dir, 'two.jsonl')));
  const again: StateEntry[] = [];
  for await (const e of back.exportState()) again.push(e);
  expect(again).toEqual(lines(join(dir, 'one.jsonl')));
  expect((await back.authenticateToken(secret))?.name).toBe('crm');
  await back.close();
}, 180_000);
