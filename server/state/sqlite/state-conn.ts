/**
 * The state store's share of the process's SQLite connection (db.ts), used by its access and metering
 * adapters. The connection outlives the state store while the visit store or the outbox still holds it:
 * a closed state store must still refuse (503), not keep answering through the shared connection.
 */
import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../errors.ts';
import type { SqliteStateDb } from './db.ts';

export class StateConnection {
  closed = false;
  readonly db: Database.Database;

  constructor(readonly sqlite: SqliteStateDb) {
    this.db = sqlite.db;
  }

  sql(source: string): Database.Statement {
    if (this.closed) throw new StoreUnavailableError('the state store is closed');
    return this.sqlite.sql(source);
  }

  io<T>(fn: () => T): T {
    return this.sqlite.io(fn);
  }
}
