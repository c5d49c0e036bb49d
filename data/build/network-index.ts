/**
 * networks.csv → networks.mmdb (our MMDB writer), plus the candidate addresses `data build` verifies as
 * samples. Runs in the build's main thread for small sources and in a worker thread for big ones
 * (./network-worker.ts), where it overlaps with loading the catalog — the two halves of a build take
 * about the same time and the machine has more than one core.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { NETWORKS_FILE } from '../catalog/schema.ts';
import { MmdbWriter } from '../mmdb/writer.ts';
import { csvRecordBatches } from '../sources/csv-records.ts';
import { readCsvBatches, sourcePath, SourceError } from '../sources/read.ts';
import { NetworkRow } from '../sources/schema.ts';
import type { NetworkRecord } from './network-record.ts';

export interface Candidate {
  network: string;
  kind: string;
  company_id: string;
}

export interface NetworkIndexResult {
  count: number;
  candidates: Candidate[];
}

const SAMPLE_LIMIT: Record<string, number> = { company: 2000 };
const OTHER_KIND_SAMPLE_LIMIT = 20;

/** Writes `out`/networks.mmdb from `dir`/networks.csv; every company network must name a known company. */
export async function writeNetworkIndex(dir: string, out: string, companyIds: ReadonlySet<string>, onRows?: (n: number) => void): Promise<NetworkIndexResult> {
  const writer = new MmdbWriter({
    ipVersion: 4,
    databaseType: 'svc-networks',
    description: { en: 'svc network index: IPv4 network → company id, network kind, confidence, geo' },
    languages: ['en'],
  });
  const perKind = new Map<string, number>();
  const candidates: Candidate[] = [];
  let count = 0;
  const file = sourcePath(dir, 'networks');
  for await (const rows of readCsvBatches(file, NetworkRow)) {
    for (const row of rows) {
      count++;
      if (row.kind === 'company' && !companyIds.has(row.company_id)) {
        throw new SourceError(`${file}: row ${count + 1}: unknown company_id ${row.company_id}`);
      }
      const record: NetworkRecord = { kind: row.kind, confidence: row.confidence };
      if (row.company_id) record.company_id = row.company_id;
      if (row.country) record.country = row.country;
      if (row.state) record.state = row.state;
      if (row.city) record.city = row.city;
      try {
        writer.insert(row.network, record);
      } catch (e) {
        throw new SourceError(`${file}: row ${count + 1}: ${(e as Error).message}`);
      }
      const seen = perKind.get(row.kind) ?? 0;
      if (seen < (SAMPLE_LIMIT[row.kind] ?? OTHER_KIND_SAMPLE_LIMIT)) {
        perKind.set(row.kind, seen + 1);
        candidates.push({ network: row.network, kind: row.kind, company_id: row.company_id });
      }
    }
    onRows?.(count);
  }
  await writer.writeFile(join(out, NETWORKS_FILE));
  return { count, candidates };
}

/** The company ids of companies.csv (its company_id column), read without validating the rest. */
export async function readCompanyIds(dir: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let column = -1;
  for await (const records of csvRecordBatches(sourcePath(dir, 'companies'))) {
    for (const { fields } of records) {
      if (column < 0) {
        column = fields.indexOf('company_id');
        if (column < 0) throw new SourceError(`${sourcePath(dir, 'companies')}: no company_id column`);
        continue;
      }
      ids.add(fields[column]);
    }
  }
  return ids;
}

/**
 * Builds the network index in a worker thread. The worker reads companies.csv's ids itself, so it can
 * start at once; the main thread still validates companies.csv fully (and fails the build on a bad row).
 */
export function writeNetworkIndexInWorker(dir: string, out: string): { result: Promise<NetworkIndexResult>; stop(): Promise<void> } {
  const entry = new URL('./network-worker.ts', import.meta.url);
  // Run from TypeScript sources (tsx, vitest): the worker registers tsx before loading its .ts entry.
  const worker = import.meta.url.endsWith('.ts')
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`,
        { eval: true, workerData: { dir, out } },
      )
    : new Worker(entry, { workerData: { dir, out } });
  const result = new Promise<NetworkIndexResult>((resolve, reject) => {
    worker.once('message', (m: { ok: true; result: NetworkIndexResult } | { ok: false; message: string; source: boolean }) =>
      m.ok ? resolve(m.result) : reject(m.source ? new SourceError(m.message) : new Error(m.message)),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`network index worker exited (${code}) without an answer`)));
  });
  return { result, stop: async () => void (await worker.terminate()) };
}
