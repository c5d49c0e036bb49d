/**
 * Moving the SQLite user store's rows (`svc state export/import`, transfer.ts UserEntry): users, SSO
 * providers and the audit log (never sessions, invitations or failure counts). Keyset pages out, one
 * transaction per batch in (each holds the file's write lock, which a live server's writes wait for).
 */
import type { SqliteStateDb } from '../sqlite/db.ts';
import { TRANSFER_PAGE } from '../transfer/import.ts';
import type { UserEntry } from '../transfer/transfer.ts';
import { DuplicateEntry, type UserImport } from './port.ts';
import { userRecord } from './service.ts';
import {
  auditRecord,
  auditRow,
  INSERT_AUDIT,
  INSERT_USER,
  isUnique,
  providerRecord,
  providerRow,
  type Row,
  SET_PROVIDER,
  storedUser,
  userRow,
} from './sqlite-rows.ts';

export async function* exportUserRows(sqlite: SqliteStateDb): AsyncIterable<UserEntry> {
  // Keyset pages, not one open iterator: the connection is shared with the other stores.
  const users = sqlite.sql(`SELECT rowid AS row_id, * FROM users WHERE rowid > ? ORDER BY rowid LIMIT ${TRANSFER_PAGE}`);
  for (let after = 0; ; ) {
    const rows = sqlite.io(() => users.all(after)) as Row[];
    for (const r of rows) {
      const user = storedUser(r);
      yield { type: 'user', record: userRecord(user), password_hash: user.password_hash };
    }
    if (rows.length < TRANSFER_PAGE) break;
    after = rows[rows.length - 1]!.row_id as number;
  }
  const providers = sqlite.sql(`SELECT * FROM sso_providers WHERE customer_id > ? ORDER BY customer_id LIMIT ${TRANSFER_PAGE}`);
  for (let after = ''; ; ) {
    const rows = sqlite.io(() => providers.all(after)) as Row[];
    for (const r of rows) yield { type: 'sso_provider', provider: providerRecord(r) };
    if (rows.length < TRANSFER_PAGE) break;
    after = rows[rows.length - 1]!.customer_id as string;
  }
  // Per customer, oldest first (as appended for equal times): an import appends them in this order.
  const events = sqlite.sql(`SELECT * FROM audit_events WHERE (customer_id, at, seq) > (?, ?, ?) ORDER BY customer_id, at, seq LIMIT ${TRANSFER_PAGE}`);
  for (let after: [string, string, number] = ['', '', 0]; ; ) {
    const rows = sqlite.io(() => events.all(...after)) as Row[];
    for (const r of rows) yield { type: 'audit_event', event: auditRecord(r) };
    if (rows.length < TRANSFER_PAGE) break;
    const last = rows[rows.length - 1]!;
    after = [last.customer_id as string, last.at as string, last.seq as number];
  }
}

export function userRowsEmpty(sqlite: SqliteStateDb): boolean {
  const any = sqlite.io(() =>
    sqlite.sql('SELECT EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM sso_providers) OR EXISTS (SELECT 1 FROM audit_events)').pluck().get(),
  );
  return any === 0;
}

export function userRowsImporter(sqlite: SqliteStateDb): UserImport {
  const insert = (sql: string, row: object, e: UserEntry) => {
    try {
      sqlite.sql(sql).run(row);
    } catch (err) {
      throw isUnique(err) ? new DuplicateEntry(e) : err;
    }
  };
  const write = sqlite.db.transaction((batch: UserEntry[]) => {
    for (const e of batch) {
      if (e.type === 'user') {
        const { password_set: _, ...r } = e.record;
        insert(INSERT_USER, userRow({ ...r, password_hash: e.password_hash }), e);
      } else if (e.type === 'sso_provider') insert(SET_PROVIDER, providerRow(e.provider), e);
      else insert(INSERT_AUDIT, auditRow(e.event), e);
    }
  });
  return {
    // The background lane's deadline: a CLI import outwaits a live server's short writes.
    write: (batch) => sqlite.write(() => write.immediate(batch), 'background'),
    finish: async () => {},
  };
}
