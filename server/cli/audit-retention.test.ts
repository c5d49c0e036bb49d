/**
 * A command from the shell never prunes the audit log: only a server does, by SVC_AUDIT_RETENTION_DAYS
 * (400 days by default). Every command opens the whole backend (server/state/backend.ts), and the user
 * store prunes when it is given a retention, so the CLI must not give it one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBackend } from '../state/backend.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { runCliCollected } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-cli-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('keeps an audit event older than SVC_AUDIT_RETENTION_DAYS through CLI commands', async () => {
  const config = { SVC_STATE: join(dir, 'svc.db'), SVC_JOURNAL_DIR: join(dir, 'journal'), SVC_OUTAGE_ALLOWANCE: 10 };
  const setup = await openBackend(config);
  try {
    await setup.state.importCustomer(TEST_CUSTOMER);
    await setup.users.appendAudit({
      customer_id: TEST_CUSTOMER.id,
      at: '2020-01-02T03:04:05.000Z',
      actor: 'operator',
      ip: null,
      action: 'customer.create',
      target: TEST_CUSTOMER.id,
      before: null,
      after: null,
    });
  } finally {
    await setup.close();
  }
  for (const argv of [
    ['token', 'list', '--json'],
    ['user', 'list', '--customer', TEST_CUSTOMER.id, '--json'],
  ]) {
    const run = await runCliCollected(argv, { env: { SVC_STATE: config.SVC_STATE, SVC_JOURNAL_DIR: config.SVC_JOURNAL_DIR, SVC_AUDIT_RETENTION_DAYS: '30' } });
    expect(run.code, run.stderr).toBe(0);
  }
  const check = await openBackend(config);
  try {
    const events = await check.users.listAudit(TEST_CUSTOMER.id, '2019-12-01T00:00:00.000Z', new Date().toISOString(), 100);
    expect(events.map((e) => e.at)).toContain('2020-01-02T03:04:05.000Z');
  } finally {
    await check.close();
  }
});
