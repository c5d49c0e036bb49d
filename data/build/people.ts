/**
 * The people table (the biggest of the catalog: 5.6 million rows at a million companies). Small builds
 * load it into the catalog directly; big ones load it in a worker thread into a catalog file of its own
 * (every table, only people's loaded, with its indexes), while the main thread loads the other tables into
 * another — then that file becomes the catalog: the main thread's tables, a third of its bytes, are copied
 * in with one `INSERT INTO t SELECT * FROM …` each, which SQLite runs as a transfer of records and index
 * entries as they are (its "xfer optimization": no row decoded, no index sorted again).
 */
import { rmSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { PersonRow } from '../../core/catalog-records.ts';
import { linkedinKey } from '../catalog/keys.ts';
import { CATALOG_DDL, PEOPLE_INDEXES } from '../catalog/schema.ts';
import { readOptionalCsvBatches } from '../sources/read.ts';
import { PERSON_COLUMNS, SOURCE_FILES } from '../sources/schema.ts';
import { inBatches, openBuildDatabase, startBuildWorker } from './bulk.ts';

/** Loads people.csv into the (empty, index-less) people table of `db`. */
export async function loadPeople(db: Database.Database, dir: string, tick?: (n: number) => void): Promise<number> {
  // Positional parameters: binding by name costs a property lookup per column and row (≈ 40% more).
  const insert = db.prepare(
    `INSERT INTO people (${PERSON_COLUMNS.join(', ')}, email_lc, linkedin_key) VALUES (${PERSON_COLUMNS.map(() => '?').join(', ')}, ?, ?)`,
  );
  const params: string[] = new Array(PERSON_COLUMNS.length + 2);
  const last = PERSON_COLUMNS.length;
  return inBatches(db, readOptionalCsvBatches(dir, SOURCE_FILES.people, PersonRow), tick, (r) => {
    for (let c = 0; c < last; c++) params[c] = r[PERSON_COLUMNS[c]];
    params[last] = r.email.trim().toLowerCase();
    params[last + 1] = r.linkedin_url ? linkedinKey(r.linkedin_url) : '';
    insert.run(params);
  });
}

/** Worker side: people.csv → `file` (a new catalog file, its other tables empty, the people table loaded and indexed). */
export async function buildPeopleFile(dir: string, file: string, tick?: (n: number) => void): Promise<{ count: number; ms: number }> {
  const started = performance.now();
  rmSync(file, { force: true });
  const db = openBuildDatabase(file);
  try {
    db.exec(CATALOG_DDL);
    const count = await loadPeople(db, dir, tick);
    db.exec(PEOPLE_INDEXES);
    return { count, ms: Math.round(performance.now() - started) };
  } finally {
    db.close();
  }
}

/** Starts buildPeopleFile in a worker thread; `onRows` gets its progress. */
export function buildPeopleFileInWorker(
  dir: string,
  file: string,
  onRows: (n: number) => void,
): { result: Promise<{ count: number; ms: number }>; stop(): Promise<void> } {
  const w = startBuildWorker<{ count: number; ms: number }>(
    new URL('./people-worker.ts', import.meta.url),
    { dir, file },
    {
      onMessage: (m) => onRows((m as { progress: number }).progress),
    },
  );
  return { result: w.result, stop: w.stop };
}

/**
 * Copies every table of the build file `file` but people (the main thread's: loaded, indexed) into `db`, the
 * people worker's file, where they are empty. Their indexes are created first on the empty tables, from the
 * same statements: the transfer needs the same indexes on both sides and copies their entries (without them,
 * SQLite inserts row by row: the same rows, only slower).
 */
export function copyOtherTables(db: Database.Database, file: string): void {
  db.prepare('ATTACH DATABASE ? AS main_build').run(file);
  try {
    const schema = db.prepare("SELECT type, name, sql FROM main_build.sqlite_master WHERE tbl_name <> 'people' AND sql IS NOT NULL").all() as {
      type: string;
      name: string;
      sql: string;
    }[];
    db.exec('BEGIN');
    for (const { sql } of schema.filter((o) => o.type === 'index')) db.exec(sql);
    for (const { name } of schema.filter((o) => o.type === 'table')) db.exec(`INSERT INTO main."${name}" SELECT * FROM main_build."${name}"`);
    db.exec('COMMIT');
  } finally {
    db.exec('DETACH DATABASE main_build');
  }
}
