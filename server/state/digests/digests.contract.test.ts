import { afterEach, describe, expect, it } from 'vitest';
import type { DigestSettings } from '../../../core/digest-records.ts';
import { type BackendName, concernNodes } from '../../testing/concern-nodes.ts';
import { SqliteStateStore } from '../sqlite/store.ts';
import type { DigestEntry } from '../transfer/transfer.ts';
import { RedisDigestStore } from './redis.ts';
import { SqliteDigestStore } from './sqlite.ts';
import type { ClaimRequest, DigestStore } from './store.ts';

type Name = BackendName;
const harness = concernNodes<DigestStore>('digests', (s) => (s instanceof SqliteStateStore ? new SqliteDigestStore(s.sqlite) : new RedisDigestStore(s.redis)));

/** Nodes of one backend on one fresh state: `node()` opens another (state store + digests store on its connection). */
function backend(name: Name) {
  return {
    fresh: () => harness.fresh(name),
    node: () => harness.node(name),
    closeAll: () => harness.closeAll(),
  };
}

const DAILY: DigestSettings = { digest: 'daily', hour: 7, time_zone: 'America/Los_Angeles', scope: { type: 'all' } };
const T0 = 1_780_000_000_000;
const claim = (owner: string, nowMs: number, extra: Partial<ClaimRequest> = {}): ClaimRequest => ({
  customer_id: 'acme',
  user_id: 'usr_0000000000000001',
  period: 'day:2026-05-27',
  owner,
  nowMs,
  leaseMs: 60_000,
  keepUntilMs: T0 + 86_400_000,
  ...extra,
});

describe.each(['sqlite', 'redis', 'redis-cluster'] as const)('the digest store on %s', (name) => {
  const fx = backend(name);
  let a: DigestStore;
  let b: DigestStore;
  const fresh = async () => {
    await fx.closeAll();
    await fx.fresh();
    [a, b] = [await fx.node(), await fx.node()];
  };
  afterEach(() => fx.closeAll());

  it('keeps settings per user, seen by every node, and lists them for the sweep', async () => {
    await fresh();
    expect(await a.getSettings('acme', 'usr_0000000000000001')).toBeNull();
    await a.putSettings({ customer_id: 'acme', user_id: 'usr_0000000000000001', settings: DAILY, updated_at: '2026-05-28T10:00:00Z' });
    await a.putSettings({
      customer_id: 'globex',
      user_id: 'usr_0000000000000002',
      settings: { ...DAILY, digest: 'weekly' },
      updated_at: '2026-05-28T10:00:00Z',
    });
    expect(await b.getSettings('acme', 'usr_0000000000000001')).toEqual({
      customer_id: 'acme',
      user_id: 'usr_0000000000000001',
      settings: DAILY,
      updated_at: '2026-05-28T10:00:00.000Z',
    });
    expect((await b.allSettings()).map((s) => [s.customer_id, s.settings.digest])).toEqual([
      ['acme', 'daily'],
      ['globex', 'weekly'],
    ]);
    await expect(a.putSettings({ customer_id: 'acme', user_id: 'usr_1', settings: { ...DAILY, hour: 24 }, updated_at: 'x' })).rejects.toThrow(/hour/);
    expect(await b.deleteSettings('acme', 'usr_0000000000000001')).toBe(true);
    expect(await a.getSettings('acme', 'usr_0000000000000001')).toBeNull();
  });

  it('lets one node claim a period while its lease runs, another take over after it, and never again once sent', async () => {
    await fresh();
    expect(await a.claim(claim('node-a', T0))).toEqual({ kind: 'claimed', attempts: 1 });
    expect(await b.claim(claim('node-b', T0 + 1_000))).toEqual({ kind: 'busy', untilMs: T0 + 60_000 });
    // node-a died: its lease runs out, node-b takes the period over.
    expect(await b.claim(claim('node-b', T0 + 60_000))).toEqual({ kind: 'claimed', attempts: 2 });
    // node-a comes back: it holds nothing any more.
    expect(await a.finish('acme', 'usr_0000000000000001', 'day:2026-05-27', 'node-a', T0 + 61_000, { status: 'sent' })).toBe(false);
    expect(await b.finish('acme', 'usr_0000000000000001', 'day:2026-05-27', 'node-b', T0 + 62_000, { status: 'sent' })).toBe(true);
    expect(await a.claim(claim('node-a', T0 + 500_000))).toEqual({ kind: 'done', status: 'sent' });
    expect(await a.getClaim('acme', 'usr_0000000000000001', 'day:2026-05-27')).toMatchObject({ status: 'sent', attempts: 2, owner: 'node-b', until_ms: 0 });
  });

  it('claims at most once among nodes racing for a period', async () => {
    await fresh();
    const answers = await Promise.all([a, b, a, b].map((s, i) => s.claim(claim(`node-${i}`, T0))));
    expect(answers.filter((o) => o.kind === 'claimed')).toHaveLength(1);
  });

  it('defers a retry until its time and can give up', async () => {
    await fresh();
    await a.claim(claim('node-a', T0));
    expect(
      await a.finish(
        'acme',
        'usr_0000000000000001',
        'day:2026-05-27',
        'node-a',
        T0 + 1_000,
        { status: 'retry', nextMs: T0 + 120_000 },
        'connect\nECONNREFUSED',
      ),
    ).toBe(true);
    expect(await b.claim(claim('node-b', T0 + 2_000))).toEqual({ kind: 'waiting', nextMs: T0 + 120_000 });
    expect(await a.getClaim('acme', 'usr_0000000000000001', 'day:2026-05-27')).toMatchObject({ error: 'connect ECONNREFUSED', until_ms: 0 });
    expect(await b.claim(claim('node-b', T0 + 120_000))).toEqual({ kind: 'claimed', attempts: 2 });
    expect(await b.finish('acme', 'usr_0000000000000001', 'day:2026-05-27', 'node-b', T0 + 121_000, { status: 'failed' })).toBe(true);
    expect(await a.claim(claim('node-a', T0 + 999_000))).toEqual({ kind: 'done', status: 'failed' });
  });

  it('forgets claims past their keep, and moves settings and ended claims (not pending ones) through export and import', async () => {
    await fresh();
    await a.putSettings({ customer_id: 'acme', user_id: 'usr_0000000000000001', settings: DAILY, updated_at: '2026-05-28T10:00:00.000Z' });
    await a.claim(claim('node-a', T0, { period: 'day:2026-05-26', keepUntilMs: T0 + 10 }));
    await a.finish('acme', 'usr_0000000000000001', 'day:2026-05-26', 'node-a', T0, { status: 'empty' });
    await a.claim(claim('node-a', T0));
    await a.finish('acme', 'usr_0000000000000001', 'day:2026-05-27', 'node-a', T0, { status: 'sent' });
    await a.claim(claim('node-a', T0, { user_id: 'usr_0000000000000003' }));
    const entries: DigestEntry[] = [];
    for await (const e of a.exportEntries()) entries.push(e);
    expect(entries.map((e) => (e.type === 'digest_done' ? `${e.type} ${e.period} ${e.status}` : e.type)).sort()).toEqual([
      'digest_done day:2026-05-26 empty',
      'digest_done day:2026-05-27 sent',
      'digest_settings',
    ]);
    await expect(a.importEntries(entries)).rejects.toThrow(/already holds digest settings/);
    // A later claim forgets the one past its keep.
    await b.claim(claim('node-b', T0 + 20, { user_id: 'usr_0000000000000004' }));
    expect(await a.getClaim('acme', 'usr_0000000000000001', 'day:2026-05-26')).toBeNull();

    await fx.closeAll();
    await fx.fresh();
    const c = await fx.node();
    expect(await c.isEmpty()).toBe(true);
    expect(await c.importEntries(entries)).toBe(3);
    expect(await c.getSettings('acme', 'usr_0000000000000001')).toMatchObject({ settings: DAILY });
    expect(await c.claim(claim('node-c', T0 + 30))).toEqual({ kind: 'done', status: 'sent' });
  });
});
