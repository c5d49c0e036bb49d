import { describe, expect, it } from 'vitest';
import type { OwnerRow, TerritoryRule } from '../../../core/alert-records.ts';
import { concernNodes } from '../../testing/concern-nodes.ts';
import { SqliteStateStore } from '../sqlite/store.ts';
import type { AlertEntry } from '../transfer/transfer.ts';
import { RedisAlertStateStore } from './redis.ts';
import { SqliteAlertStateStore } from './sqlite.ts';
import type { AlertStateStore } from './store.ts';

const { nodes } = concernNodes<AlertStateStore>('alerts', (s) =>
  s instanceof SqliteStateStore ? new SqliteAlertStateStore(s.sqlite) : new RedisAlertStateStore(s.redis),
);

const row = (key: string, email: string): OwnerRow => ({ key, owner_email: email, slack_member_id: null, teams_mention: null });
const rule: TerritoryRule = { country: ['Germany'], owner_email: 'dach@acme.test', slack_member_id: 'U0DACH', teams_mention: null };

describe.each(['sqlite', 'redis', 'redis-cluster'] as const)('the alerts state on %s', (name) => {
  it('an owners list is replaced whole; rows are found by key', async () => {
    const { stores, close } = await nodes(name, 2);
    const [a, b] = stores as [AlertStateStore, AlertStateStore];
    try {
      await a.putOwners('acme', { owners: [row('domain:old.example', 'old@acme.test')], territories: [rule], updated_at: '2026-11-25T10:00:00.000Z' });
      await a.putOwners('acme', {
        owners: [row('domain:northwind.example', 'ann@acme.test'), row('company:900002', 'bob@acme.test')],
        territories: [],
        updated_at: '2026-11-25T11:00:00.000Z',
      });
      const doc = await b.getOwners('acme');
      expect(doc.owners.map((o) => o.key)).toEqual(['company:900002', 'domain:northwind.example']);
      expect(doc.territories).toEqual([]);
      expect(doc.updated_at).toBe('2026-11-25T11:00:00.000Z');
      expect((await b.ownerRows('acme', ['company:900001', 'domain:northwind.example'])).map((o) => o.owner_email)).toEqual(['ann@acme.test']);
      expect(await b.getOwners('globex')).toEqual({ owners: [], territories: [], updated_at: null });
    } finally {
      await close();
    }
  });

  it('a stage mark is set once, however many nodes race for it', async () => {
    const { stores, close } = await nodes(name, 2);
    try {
      const mark = [{ product: 'cdp', stage: 'Decision' }];
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => stores[i % 2]!.markStages('acme', '900001', mark, 1_000 + i)));
      expect(results.filter((r) => r.length === 1)).toHaveLength(1);
      // Another stage of the same account, or the same stage of another account, is new.
      expect(await stores[0]!.markStages('acme', '900001', [...mark, { product: 'cdp', stage: 'Purchase' }], 2_000)).toEqual([
        { product: 'cdp', stage: 'Purchase' },
      ]);
      expect(await stores[1]!.markStages('acme', '900002', mark, 2_000)).toEqual(mark);
    } finally {
      await close();
    }
  });

  it('a day’s mail mark is one delivery’s (its retry keeps it); another day is free', async () => {
    const { stores, close } = await nodes(name, 2);
    const [a, b] = stores as [AlertStateStore, AlertStateStore];
    try {
      expect(await a.claimMail('acme', 'ann@acme.test', '900001', '2026-11-25', 'dl_1')).toBe(true);
      expect(await b.claimMail('acme', 'ann@acme.test', '900001', '2026-11-25', 'dl_2')).toBe(false);
      expect(await b.claimMail('acme', 'ann@acme.test', '900001', '2026-11-25', 'dl_1')).toBe(true);
      expect(await b.claimMail('acme', 'ann@acme.test', '900002', '2026-11-25', 'dl_2')).toBe(true);
      expect(await b.claimMail('acme', 'ann@acme.test', '900001', '2026-11-26', 'dl_3')).toBe(true);
    } finally {
      await close();
    }
  });

  it('moves owners, rules and stage marks through export and import (into SQLite), and refuses a store that holds some', async () => {
    const from = await nodes(name, 1);
    const into = await nodes('sqlite', 1);
    try {
      const [a] = from.stores as [AlertStateStore];
      await a.putOwners('acme', { owners: [row('domain:northwind.example', 'ann@acme.test')], territories: [rule], updated_at: '2026-11-25T10:00:00.000Z' });
      await a.markStages('acme', '900001', [{ product: 'cdp|x', stage: 'Decision' }], 5_000);
      const entries: AlertEntry[] = [];
      for await (const e of a.exportEntries()) entries.push(e);
      expect(entries.map((e) => e.type)).toEqual(['alert_territories', 'alert_owner', 'alert_stage']);
      const [b] = into.stores as [AlertStateStore];
      expect(await b.importEntries(entries)).toBe(3);
      expect(await b.getOwners('acme')).toEqual(await a.getOwners('acme'));
      expect(await b.markStages('acme', '900001', [{ product: 'cdp|x', stage: 'Decision' }], 6_000)).toEqual([]);
      await expect(b.importEntries(entries)).rejects.toThrow(/import into an empty state/);
    } finally {
      await from.close();
      await into.close();
    }
  });
});
