/** The embedded state store: one SQLite file (WAL), safe for several processes on one machine. */

import { AuthCache } from '../access/auth-cache.ts';
import { AccessService } from '../access/service.ts';
import { SqliteAccess } from '../access/sqlite.ts';
import { ComposedStateStore } from '../compose.ts';
import type { StateLog } from '../errors.ts';
import { MeteringService } from '../metering/service.ts';
import { SqliteMetering } from '../metering/sqlite.ts';
import { stateTransfer } from '../transfer/state.ts';
import { holdStateDb, type SqliteStateDb } from './db.ts';
import { StateConnection } from './state-conn.ts';

export interface SqliteStoreOptions {
  /** Where operational problems are reported (state file replaced, writes refused). */
  log?: StateLog;
}

export class SqliteStateStore extends ComposedStateStore {
  /**
   * The process's connection to the state file and its lock policy (db.ts): the visit store and the
   * webhook outbox take it from here (backend.ts), so the file is opened once.
   */
  readonly sqlite: SqliteStateDb;
  private readonly conn: StateConnection;
  private readonly meter: SqliteMetering;

  constructor(file: string, options: SqliteStoreOptions = {}) {
    const sqlite = holdStateDb(file, { log: options.log });
    const conn = new StateConnection(sqlite);
    const access = new SqliteAccess(conn, new AuthCache());
    const meter = new SqliteMetering(conn);
    const transfer = stateTransfer({
      access,
      metering: meter,
      // The whole file in one transaction (with one version bump): an import that fails leaves nothing.
      pageSize: Number.POSITIVE_INFINITY,
      writePage: (page) =>
        access.change(() => {
          meter.forget();
          for (const e of page) if (!access.importEntry(e)) meter.importEntry(e);
        }),
    });
    super(new AccessService(access, access.auth), new MeteringService(meter), transfer);
    this.sqlite = sqlite;
    this.conn = conn;
    this.meter = meter;
  }

  async close(): Promise<void> {
    if (this.conn.closed) return;
    this.meter.flush();
    this.conn.closed = true;
    this.sqlite.release();
  }
}
