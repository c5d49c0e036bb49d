/**
 * The state export file: JSON lines, one entry per line (transfer.ts), streamed both ways. One file holds
 * the six stores' entries: the state store's first (customers before what belongs to them), then the
 * visit store's, the webhook outbox's, the user store's, the CRM store's, the digest store's, the alerts' and the engagement store's. A file written before the
 * visit, outbox, user and CRM entries existed holds only the entries there were, and imports as it did.
 */

import { once } from 'node:events';
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { EngagementEntry } from '../engagement/entries.ts';
import { StateError } from '../errors.ts';
import {
  type AlertEntry,
  type CrmEntry,
  type DigestEntry,
  type EntryTransfer,
  type StateEntry,
  type StateTransfer,
  storeOf,
  TransferEntry,
  type UserEntry,
  type VisitEntry,
  type WebhookEntry,
} from './transfer.ts';

/** Every store a file moves; a command never moves one without the others (the file would silently lack them). */
export interface TransferStores {
  state: StateTransfer;
  visits: EntryTransfer<VisitEntry>;
  webhooks: EntryTransfer<WebhookEntry>;
  /**
   * Users, SSO providers and the audit log. Optional only until every caller passes it (server/cli/
   * with-store.ts): without it an export holds none of them, and an import of a file that has some is
   * refused before anything is written.
   */
  users: EntryTransfer<UserEntry>;
  /** CRM connections (with their secrets), pending accounts, account records and runs. */
  crm: EntryTransfer<CrmEntry>;
  /** Email digest settings and the periods whose digest is done. */
  digests: EntryTransfer<DigestEntry>;
  /**
   * Alert owners lists, territory rules and stage marks (the alerts themselves are webhook endpoints). Optional
   * only until every caller passes it: without it an export holds none, and an import of a file that has
   * some is refused before anything is written.
   */
  alerts?: EntryTransfer<AlertEntry>;
  /**
   * Engaged time and custom event counts per account and day, and each account's latest events. Optional as
   * `alerts` is: without it an export holds none, and an import of a file that has some is refused.
   */
  engagement?: EntryTransfer<EngagementEntry>;
}

export type TransferStoreName = keyof TransferStores;

/** Entries per store, and in all. */
export type TransferCounts = Record<TransferStoreName, number> & { entries: number };

const ORDER: TransferStoreName[] = ['state', 'visits', 'webhooks', 'users', 'crm', 'digests', 'alerts', 'engagement'];

async function* entriesOf(stores: TransferStores, name: TransferStoreName): AsyncIterable<TransferEntry> {
  if (name === 'state') yield* stores.state.exportState();
  else if (name === 'visits') yield* stores.visits.exportEntries();
  else if (name === 'webhooks') yield* stores.webhooks.exportEntries();
  else if (name === 'users') yield* stores.users.exportEntries();
  else if (name === 'crm') yield* stores.crm.exportEntries();
  else if (name === 'digests') yield* stores.digests.exportEntries();
  else if (name === 'alerts') {
    if (stores.alerts) yield* stores.alerts.exportEntries();
  } else if (stores.engagement) yield* stores.engagement.exportEntries();
}

/** Writes every entry of the stores to `file` (which must not exist; created 0600); a failed export leaves no file behind. */
export async function exportStateFile(stores: TransferStores, file: string): Promise<TransferCounts> {
  // Owner-only: the file holds webhook signing secrets, CRM credentials and token hashes.
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  await once(out, 'open');
  const counts: TransferCounts = { entries: 0, state: 0, visits: 0, webhooks: 0, users: 0, crm: 0, digests: 0, alerts: 0, engagement: 0 };
  try {
    for (const name of ORDER) {
      for await (const entry of entriesOf(stores, name)) {
        if (!out.write(JSON.stringify(entry) + '\n')) await once(out, 'drain');
        counts[name]++;
        counts.entries++;
      }
    }
    out.end();
    await once(out, 'finish');
  } catch (e) {
    // A file cut short would import as if it were everything. Writes still queued fail with the stream: no matter, the file goes.
    out.on('error', () => {});
    await new Promise<void>((resolve) => out.destroy().once('close', () => resolve()));
    rmSync(file, { force: true });
    throw e;
  }
  return counts;
}

/** The entries of an export file, validated line by line (a bad line names its number). */
export async function* readStateFile(file: string): AsyncIterable<TransferEntry> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new StateError(`${file}:${line}: not a JSON value`);
    }
    const entry = TransferEntry.safeParse(parsed);
    if (!entry.success) throw new StateError(`${file}:${line}: ${entry.error.issues[0]?.path.join('.')}: ${entry.error.issues[0]?.message}`);
    yield entry.data;
  }
}

async function* only<E extends TransferEntry>(file: string, name: TransferStoreName): AsyncIterable<E> {
  for await (const entry of readStateFile(file)) if (storeOf(entry) === name) yield entry as E;
}

/**
 * Loads a file into the stores, which must all be empty. Every line is checked, and every store found
 * empty, before anything is written; then each store reads its own entries from the file (one
 * streamed pass per store: nothing of the file is held in memory but what a store's import keeps).
 */
export async function importStateFile(stores: TransferStores, file: string): Promise<TransferCounts> {
  const counts: TransferCounts = { entries: 0, state: 0, visits: 0, webhooks: 0, users: 0, crm: 0, digests: 0, alerts: 0, engagement: 0 };
  for await (const entry of readStateFile(file)) {
    counts[storeOf(entry)]++;
    counts.entries++;
  }
  const held = [
    !(await stores.state.isEmpty()) && 'customers',
    !(await stores.visits.isEmpty()) && 'page views or tag sightings',
    !(await stores.webhooks.isEmpty()) && 'webhook endpoints or deliveries',
    !(await stores.users.isEmpty()) && 'users, SSO providers or audit events',
    !(await stores.crm.isEmpty()) && 'CRM connections',
    !(await stores.digests.isEmpty()) && 'digest settings',
    stores.alerts && !(await stores.alerts.isEmpty()) && 'alert owners or stage marks',
    stores.engagement && !(await stores.engagement.isEmpty()) && 'engaged time or custom events',
  ].filter(Boolean);
  if (counts.alerts > 0 && !stores.alerts)
    throw new StateError('the file holds alert owners or stage marks, and this command moves none: nothing was imported');
  if (counts.engagement > 0 && !stores.engagement)
    throw new StateError('the file holds engaged time or custom events, and this command moves none: nothing was imported');
  if (held.length > 0) throw new StateError(`the target state already holds ${held.join(', ')}: import into an empty state`, 'conflict');
  await stores.state.importState(only<StateEntry>(file, 'state'));
  await stores.visits.importEntries(only<VisitEntry>(file, 'visits'));
  await stores.webhooks.importEntries(only<WebhookEntry>(file, 'webhooks'));
  await stores.users.importEntries(only<UserEntry>(file, 'users'));
  await stores.crm.importEntries(only<CrmEntry>(file, 'crm'));
  await stores.digests.importEntries(only<DigestEntry>(file, 'digests'));
  if (stores.alerts) await stores.alerts.importEntries(only<AlertEntry>(file, 'alerts'));
  if (stores.engagement) await stores.engagement.importEntries(only<EngagementEntry>(file, 'engagement'));
  return counts;
}
