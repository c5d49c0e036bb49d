/**
 * `svc alert list|create|test` on a real SQLite state file: the API's rules (hosts, segments), the alert
 * stored as an outbox endpoint, a test queued in the outbox labelled as one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteWebhookStore } from '../state/outbox/sqlite.ts';
import { SqliteStateStore } from '../state/sqlite/store.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { runCliCollected } from './run.ts';

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-alert-cli-'));
  const store = new SqliteStateStore(join(dir, 'svc.db'), { log: () => {} });
  await store.importCustomer(TEST_CUSTOMER);
  await store.close();
  env = { SVC_STATE: join(dir, 'svc.db'), SVC_DATA: join(dir, 'no-data'), SVC_JOURNAL_DIR: join(dir, 'journal') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('svc alert', () => {
  it('creates, lists and queues a labelled test', async () => {
    const created = await runCliCollected(
      [
        'alert',
        'create',
        '--customer',
        'acme',
        '--name',
        'Enterprise',
        '--trigger',
        'segment_entered:101',
        '--email',
        'sales@acme.test',
        '--route-to-owner',
        '--json',
      ],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const alert = JSON.parse(created.stdout);
    expect(alert).toMatchObject({
      name: 'Enterprise',
      trigger: { type: 'segment_entered', segment: 101 },
      destination: { type: 'email', to: ['sales@acme.test'] },
    });

    const refused = await runCliCollected(
      ['alert', 'create', '--customer', 'acme', '--name', 'x', '--trigger', 'hot', '--teams', 'https://acme.webhook.office.com/webhookb2/x'],
      { env },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('retired');
    expect(
      (await runCliCollected(['alert', 'create', '--customer', 'acme', '--name', 'x', '--trigger', 'segment_entered:999', '--email', 'a@acme.test'], { env }))
        .stderr,
    ).toContain('no segment 999');

    const list = await runCliCollected(['alert', 'list', '--customer', 'acme'], { env });
    expect(list.stdout).toContain(`${alert.id}  Enterprise — segment_entered → email sales@acme.test + owner`);

    const test = await runCliCollected(['alert', 'test', '--customer', 'acme', '--alert', alert.id, '--json'], { env });
    expect(test.code, test.stderr).toBe(0);
    const outbox = new SqliteWebhookStore(join(dir, 'svc.db'));
    try {
      const [delivery] = await outbox.listDeliveries('acme', alert.id, 10);
      expect(delivery).toMatchObject({ id: JSON.parse(test.stdout).delivery_id, status: 'pending', test: true });
    } finally {
      await outbox.close();
    }
  });
});
