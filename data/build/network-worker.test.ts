/** `data build` with the network index in a worker thread builds exactly what the single-threaded build does. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { writeFixtureSources } from '../../server/testing/test-server.ts';
import { SourceError } from '../sources/read.ts';
import { buildDataset } from './build.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-build-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

const tables = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(['companies', 'domains', 'people', 'intent', 'engagement', 'network_samples'].map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all()]));
  } finally {
    db.close();
  }
};
/** The file without its metadata (which holds the build time). */
const sections = (file: string) => {
  const b = readFileSync(file);
  return b.subarray(0, b.lastIndexOf(MARKER));
};

it('builds the same files with and without the worker', async () => {
  writeFixtureSources(join(dir, 'src'));
  const inline = await buildDataset({ in: join(dir, 'src'), out: join(dir, 'inline'), networksInWorker: false });
  const worker = await buildDataset({ in: join(dir, 'src'), out: join(dir, 'worker'), networksInWorker: true });
  expect({ ...worker, out: '', ms: 0 }).toEqual({ ...inline, out: '', ms: 0 });
  expect(sections(join(dir, 'worker', 'networks.mmdb')).equals(sections(join(dir, 'inline', 'networks.mmdb')))).toBe(true);
  expect(tables(join(dir, 'worker', 'catalog.db'))).toEqual(tables(join(dir, 'inline', 'catalog.db')));
});

it('reports a bad network row from the worker as a source error and leaves no catalog behind', async () => {
  writeFixtureSources(join(dir, 'bad'));
  appendFileSync(join(dir, 'bad', 'networks.csv'), '198.51.100.0/24,company,424242,High,,,\n');
  const failed = buildDataset({ in: join(dir, 'bad'), out: join(dir, 'bad-out'), networksInWorker: true });
  await expect(failed).rejects.toThrow(SourceError);
  await expect(failed).rejects.toThrow(/unknown company_id 424242/);
  expect(() => readFileSync(join(dir, 'bad-out', 'catalog.db'))).toThrow();
});
