/**
 * One migration mechanism for every SQLite file: a list's steps above the file's `user_version` run once,
 * in order, in one transaction; a file of a newer version is refused, named by its list.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { JOBS_MIGRATIONS, type MigrationList, migrate, SCHEMA_VERSION, STATE_MIGRATIONS } from './schema.ts';

describe('migrate(db, list)', () => {
  it("runs the list's steps above the file's version, once each, in order", () => {
    const ran: number[] = [];
    const list: MigrationList = { file: 'the test file', steps: [0, 1, 2].map((i) => () => void ran.push(i)) };
    const db = new Database(':memory:');
    db.pragma('user_version = 1');
    expect(migrate(db, list)).toBe(1);
    expect(ran).toEqual([1, 2]);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    expect(migrate(db, list)).toBe(3);
    expect(ran).toEqual([1, 2]);
  });

  it('keeps the version where it was when a step fails (the transaction is undone)', () => {
    const list: MigrationList = {
      file: 'the test file',
      steps: [
        (db) => db.exec('CREATE TABLE a (x)'),
        () => {
          throw new Error('step 2 failed');
        },
      ],
    };
    const db = new Database(':memory:');
    expect(() => migrate(db, list)).toThrow('step 2 failed');
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'a'").get()).toEqual({ n: 0 });
  });

  it('refuses a file of a newer version, naming the kind of file', () => {
    const db = new Database(':memory:');
    db.pragma(`user_version = ${JOBS_MIGRATIONS.steps.length + 1}`);
    expect(() => migrate(db, JOBS_MIGRATIONS)).toThrow(/^the jobs file has schema version 2, newer than this server's 1: upgrade the server$/);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    expect(() => migrate(db)).toThrow(`the state file has schema version ${SCHEMA_VERSION + 1}, newer than this server's ${SCHEMA_VERSION}`);
  });

  it('keeps the state and jobs schemas in separate files: each list creates only its own tables', () => {
    const tables = (list: MigrationList) => {
      const db = new Database(':memory:');
      migrate(db, list);
      return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    };
    expect(tables(JOBS_MIGRATIONS)).toEqual(['enrich_jobs']);
    expect(tables(STATE_MIGRATIONS)).not.toContain('enrich_jobs');
    expect(tables(STATE_MIGRATIONS)).toContain('customers');
  });
});
