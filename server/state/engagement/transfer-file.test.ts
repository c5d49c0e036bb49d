/**
 * The engagement store in `svc state export/import` files: its lines written after the other stores', read
 * back into a fresh state whole (counted as `engagement`), and a file holding some refused by a command
 * that moves none (nothing imported) — on real SQLite state files opened as the server opens them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type Backend, openBackend } from '../backend.ts';
import { exportStateFile, importStateFile, readStateFile, type TransferStores } from '../transfer/file.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-engagement-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open = (name: string) =>
  openBackend({ SVC_STATE: join(dir, `${name}.db`), SVC_REDIS_URL: undefined, SVC_JOURNAL_DIR: join(dir, 'journal'), SVC_OUTAGE_ALLOWANCE: 10 }, () => {});
const stores = (b: Backend, withEngagement = true): TransferStores => ({
  state: b.state,
  visits: b.visits,
  webhooks: b.outbox,
  users: b.users,
  crm: b.crm,
  digests: b.digests,
  alerts: b.alerts,
  ...(withEngagement ? { engagement: b.engagement } : {}),
});

it('moves engaged time, event counts and latest events through the export file, and refuses them where they cannot go', async () => {
  const today = new Date().toISOString().slice(0, 10);
  const source = await open('source');
  const file = join(dir, 'state.jsonl');
  try {
    await source.engagement.addEngagedTime({ customer_id: 'acme', company_id: '900001', day: today, path: '/pricing', ms: 4200 });
    await source.engagement.addEvent({
      customer_id: 'acme',
      company_id: '900001',
      at: new Date().toISOString(),
      name: 'demo_requested',
      path: '/pricing',
      properties: { plan: 'pro' },
    });
    const counts = await exportStateFile(stores(source), file);
    expect(counts).toMatchObject({ engagement: 3 });
  } finally {
    await source.close();
  }
  const types: string[] = [];
  for await (const e of readStateFile(file)) types.push(e.type);
  expect(types.slice(-3).sort()).toEqual(['engaged_time', 'event_count', 'recent_event']);

  const refusing = await open('refusing');
  try {
    await expect(importStateFile(stores(refusing, false), file)).rejects.toThrow(/holds engaged time or custom events, and this command moves none/);
  } finally {
    await refusing.close();
  }
  const target = await open('target');
  try {
    expect(await importStateFile(stores(target), file)).toMatchObject({ engagement: 3 });
    expect(await target.engagement.accountEngagement('acme', '900001', today, today)).toEqual({
      time: [{ day: today, path: '/pricing', ms: 4200 }],
      events: [{ day: today, name: 'demo_requested', count: 1 }],
    });
    expect((await target.engagement.recentEvents('acme', '900001')).map((e) => e.properties)).toEqual([{ plan: 'pro' }]);
    await expect(importStateFile(stores(target), file)).rejects.toThrow(/already holds .*engaged time or custom events/);
  } finally {
    await target.close();
  }
});
