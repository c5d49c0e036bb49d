/**
 * The people table (the biggest of the catalog: 5.6 million rows at a million companies). Small builds
 * load it into the catalog directly; big ones load it in a worker thread into a file of its own, with
 * its indexes, while the main thread loads the other tables — then the main thread copies it into the
 * catalog with one `INSERT INTO people SELECT * FROM …`, which SQLite runs as a page-level transfer of
 * the table and its indexes (its "xfer optimization": no row is decoded or re-encoded, ≈ 1 µs a row
 * against ≈ 7 µs to insert and index it).
 */
import { rmSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { PersonRow } from '../../core/catalog-records.ts';
import { linkedinKey } from '../catalog/keys.ts';
import { PEOPLE_DDL, PEOPLE_INDEXES } from '../catalog/schema.ts';
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

/** Worker side: people.csv → `file` (a new SQLite file holding the people table and its indexes). */
export async function buildPeopleFile(dir: string, file: string, tick?: (n: number) => void): Promise<{ count: number; ms: number }> {
  const started = performance.now();
  rmSync(file, { force: true });
  const db = openBuildDatabase(file);
  try {
    db.exec(PEOPLE_DDL);
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
 * Copies the people table (and its indexes) of `file` into the empty people table of `db`, whose indexes
 * must already exist: the transfer copies index entries too, and needs the same indexes on both sides
 * (otherwise SQLite inserts row by row: the same rows, only slower).
 */
export function copyPeopleFrom(db: Database.Database, file: string): void {
  db.prepare('ATTACH DATABASE ? AS people_build').run(file);
  try {
    db.exec('BEGIN; INSERT INTO main.people SELECT * FROM people_build.people; COMMIT');
  } finally {
    db.exec('DETACH DATABASE people_build');
  }
}
