/** `svc state export FILE` / `svc state import FILE`: all state between backends (SQLite ⇄ Redis). */
import type { Config } from '../config.ts';
import { exportStateFile, importStateFile, type TransferStores } from '../state/transfer/file.ts';
import type { Command } from './commands.ts';
import { type CommandContext, emit, pathIn, UsageError } from './output.ts';
import { withStore } from './with-store.ts';

const backendName = (config: Config) => (config.SVC_REDIS_URL ? `Redis ${new URL(config.SVC_REDIS_URL).host}` : `SQLite ${config.SVC_STATE}`);

/** Runs one transfer between the configured stores and FILE (the first positional; `at` is where it is). */
function transfer(
  { io }: CommandContext,
  positionals: string[],
  fn: (stores: TransferStores, file: string, at: string, name: string) => Promise<void>,
): Promise<void> {
  const file = positionals[0];
  if (!file) throw new UsageError('FILE is required');
  return withStore(io, (state, config, { visits, outbox, users, crm, digests, alerts, engagement }) =>
    fn({ state, visits, webhooks: outbox, users, crm, digests, alerts, engagement }, file, pathIn(io, file), backendName(config)),
  );
}

const WHAT = `
What moves: customers; tokens (the hash of each secret, never a secret); web tags; settings; credit
balances and the charge ledger; page-view aggregates (per customer, day and account: views, sessions,
first/last seen, top pages; anonymous views per day; each account's segments as of its latest view, so
segment.entered does not fire again; the raw page views kept for the events export) and the origins each
tag was seen on; webhook
endpoints WITH THEIR SIGNING SECRETS, the outbox's deliveries (pending ones and the kept log) and the
dedupe keys of the last three days; users (with the scrypt hash of each password), single sign-on
providers WITH THEIR CLIENT SECRETS, and the audit log; CRM connections WITH THEIR CREDENTIALS, the
accounts waiting to be synced, what svc knows of each account's CRM records, and the sync runs; each
user's email digest settings and the periods whose digest was sent; alert owners lists, territory rules
and the buying stages each account reached (alerts themselves move with the webhook endpoints); engaged
time and custom event counts per account and day, and each account's latest custom events. Not
moved: rate-limit counters (they expire within a minute), console sessions and pending invitations
(everybody signs in again), CRM sync leases (a run in flight starts again), digests being sent at
the time (sent after the import), and the raw page-view
NDJSON files (SVC_EVENTS_DIR, per node).

FILE holds webhook signing secrets, SSO client secrets and CRM credentials: keep it as secret as the
state itself (it is created readable by its owner only), and delete it once imported. The store is
SQLite (SVC_STATE) or, with SVC_REDIS_URL set, Redis. FILE must not exist yet.
`;

export const STATE_COMMANDS: Record<string, Command> = {
  'state export': {
    usage: 'state export FILE',
    summary:
      'write all state (customers, tokens as hashes, tags, settings, credits and ledger, page views, webhook endpoints with secrets and their outbox, users, SSO providers, the audit log) to FILE as JSON lines',
    help: WHAT,
    options: {},
    run: (_v, positionals, ctx) =>
      transfer(ctx, positionals, async (stores, file, at, name) => {
        const c = await exportStateFile(stores, at);
        emit(
          ctx,
          { file, ...c, from: name },
          () =>
            `exported ${c.entries} entries (state ${c.state}, page views ${c.visits}, webhooks ${c.webhooks}, users ${c.users}, CRM ${c.crm}, digests ${c.digests}, alerts ${c.alerts}) from ${name} to ${file}`,
        );
      }),
  },
  'state import': {
    usage: 'state import FILE',
    summary: 'load a `state export` file into an empty store (SQLite, or Redis with SVC_REDIS_URL): state, page views, webhooks and users',
    help: '\nEvery line is checked, and the state, page views and webhook outbox found empty, before anything is written.\nA file from before page views and webhooks were exported imports too.\n',
    options: {},
    run: (_v, positionals, ctx) =>
      transfer(ctx, positionals, async (stores, file, at, name) => {
        const c = await importStateFile(stores, at);
        emit(
          ctx,
          { file, ...c, into: name },
          () =>
            `imported ${c.entries} entries (state ${c.state}, page views ${c.visits}, webhooks ${c.webhooks}, users ${c.users}, CRM ${c.crm}, digests ${c.digests}, alerts ${c.alerts}) from ${file} into ${name}`,
        );
      }),
  },
};
