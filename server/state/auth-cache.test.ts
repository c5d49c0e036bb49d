/**
 * The per-process cache of tokens, customers and tags (sqlite-store.ts) stays exact across processes:
 * two stores on one file stand for two workers; a change made through one is seen by the other's next
 * request (a later event-loop turn: `nextRequest()`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { SqliteStateStore } from './sqlite-store.ts';

let dir: string;
let a: SqliteStateStore;
let b: SqliteStateStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-auth-cache-'));
  a = new SqliteStateStore(join(dir, 'svc.db'));
  b = new SqliteStateStore(join(dir, 'svc.db'));
  await a.importCustomer(TEST_CUSTOMER);
});
/** A request arriving after the change: the store checks the version once per event-loop turn. */
const nextRequest = () => new Promise((r) => setImmediate(r));

afterEach(async () => {
  await a.close();
  await b.close();
  rmSync(dir, { recursive: true, force: true });
});

it('refuses a token deactivated, rotated or deleted by another process on the next request', async () => {
  const { record, secret } = await b.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' });
  expect((await a.authenticateToken(secret))?.id).toBe(record.id);
  expect((await a.authenticateToken(secret))?.id).toBe(record.id); // cached
  await b.setTokenStatus(record.id, 'inactive');
  await nextRequest();
  expect(await a.authenticateToken(secret)).toBeNull();
  await b.setTokenStatus(record.id, 'active');
  await nextRequest();
  expect((await a.authenticateToken(secret))?.id).toBe(record.id);
  const { secret: next } = await b.rotateToken(record.id);
  await nextRequest();
  expect(await a.authenticateToken(secret)).toBeNull();
  expect((await a.authenticateToken(next))?.id).toBe(record.id);
  await b.deleteToken(record.id);
  await nextRequest();
  expect(await a.authenticateToken(next)).toBeNull();
});

it('sees a token created by another process after a miss was cached', async () => {
  expect(await a.authenticateToken('x'.repeat(40))).toBeNull();
  const { secret } = await b.createToken({ customer_id: 'acme', api_group: 'identification', name: 'new' });
  await nextRequest();
  expect(await a.authenticateToken(secret)).not.toBeNull();
});

it('sees customer and tag changes made by another process', async () => {
  expect((await a.getCustomer('acme'))?.identification_credits).toBe(1000);
  expect((await a.getTag('acme-tag'))?.allowed_domains).toContain('localhost');
  await b.importCustomer({ ...TEST_CUSTOMER, identification_credits: 7, tags: [{ ...TEST_CUSTOMER.tags[0], allowed_domains: ['only.example'] }] });
  await nextRequest();
  expect((await a.getCustomer('acme'))?.identification_credits).toBe(7);
  expect((await a.getTag('acme-tag'))?.allowed_domains).toEqual(['only.example']);
  await b.updateTagSettings('acme-tag', { cache_ttl_ms: 5000 });
  await nextRequest();
  expect((await a.getTag('acme-tag'))?.settings).toEqual({ cache_ttl_ms: 5000 });
  expect(await a.getTag('nope-tag')).toBeNull();
  await b.createTag({ customer_id: 'acme', tag_id: 'nope-tag', allowed_domains: ['x.example'] });
  await nextRequest();
  expect((await a.getTag('nope-tag'))?.customer_id).toBe('acme');
});

it('hands out frozen records, and writes last_used_at at most once a minute', async () => {
  const { record, secret } = await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' });
  const t = (await a.authenticateToken(secret))!;
  expect(Object.isFrozen(t) && Object.isFrozen(t.allowed_domains)).toBe(true);
  expect(Object.isFrozen(await a.getCustomer('acme'))).toBe(true);
  const first = (await b.getToken(record.id))!.last_used_at;
  expect(first).not.toBeNull();
  await a.authenticateToken(secret);
  expect((await b.getToken(record.id))!.last_used_at).toBe(first);
});
