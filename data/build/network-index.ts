/**
 * networks.csv (IPv4 and IPv6 networks) → networks.mmdb (our MMDB writer), plus the candidate addresses `data build` verifies as
 * samples. Runs in the build's main thread for small sources and in a worker thread for big ones
 * (./network-worker.ts), where it overlaps with loading the catalog — the two halves of a build take
 * about the same time and the machine has more than one core.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { NETWORKS_FILE } from '../catalog/schema.ts';
import { ByteSink } from '../mmdb/encoder.ts';
import { MmdbWriter } from '../mmdb/writer.ts';
import { readCsvBatches, SourceError, sourcePath } from '../sources/read.ts';
import { NetworkRow } from '../sources/schema.ts';
import { startBuildWorker } from './bulk.ts';
import { encodeNetworkRecord } from './network-record-encoding.ts';

export interface Candidate {
  network: string;
  kind: string;
  company_id: string;
}

export interface NetworkIndexResult {
  count: number;
  candidates: Candidate[];
  /** Time it took, from the first row read to the file in place. */
  ms: number;
}

const SAMPLE_LIMIT: Record<string, number> = { company: 2000 };
const OTHER_KIND_SAMPLE_LIMIT = 20;

/**
 * Writes `out`/networks.mmdb from `dir`/networks.csv; every company network must name a known company.
 * `companyIds` may still be on its way (the worker gets them once the main thread has read companies.csv):
 * until it arrives, the first row naming each company is noted and checked when it does. Errors are
 * the same either way: the first bad row in file order, with its row number.
 */
export async function writeNetworkIndex(
  dir: string,
  out: string,
  companyIds: ReadonlySet<string> | Promise<ReadonlySet<string>>,
  onRows?: (n: number) => void,
): Promise<NetworkIndexResult> {
  // An IPv4 tree while the sources hold only IPv4 networks (IPv4 lookups cost the same in either tree,
  // measured: bench/lookup.ts), an IPv6 tree with IPv4 in ::/96 once one IPv6 network is there.
  const file = sourcePath(dir, 'networks');
  const writer = new MmdbWriter({
    // A row of networks.csv takes ≈ 70 bytes (1M-company sources); a few more rows than that are expected.
    expectedNetworks: Math.ceil(fileSize(file) / 64),
    ipVersion: 'auto',
    databaseType: 'svc-networks',
    description: { en: 'svc network index: IP network → company id, network kind, confidence, geo' },
    languages: ['en'],
  });
  const started = performance.now();
  const perKind = new Map<string, number>();
  const candidates: Candidate[] = [];
  const encoded = new ByteSink(256);
  let count = 0;
  let known = companyIds instanceof Promise ? null : companyIds;
  // A company's networks come in runs (≈ 5 rows each in generated sources): a row naming the company the
  // row before it named was checked already, without hashing its fresh id string into the set again.
  let lastKnown = '';
  // Rows are checked directly from the moment the ids arrive (between two batches). A rejection is
  // left to firstUnknown's await, which reports it.
  if (companyIds instanceof Promise)
    void companyIds.then(
      (ids) => void (known = ids),
      () => {},
    );
  /** Company id → first row naming it, while the ids are not known yet. */
  const pending = new Map<string, number>();
  const unknownCompany = (id: string, row: number) => new SourceError(`${file}: row ${row}: unknown company_id ${id}`);
  /** The first pending row (in file order) whose company is unknown, once the ids are there. */
  const firstUnknown = async (): Promise<SourceError | null> => {
    known ??= await companyIds;
    let first: [string, number] | null = null;
    for (const [id, row] of pending) if (!known.has(id) && (first === null || row < first[1])) first = [id, row];
    return first && unknownCompany(...first);
  };
  try {
    for await (const rows of readCsvBatches(file, NetworkRow)) {
      if (known !== null && pending.size > 0) {
        // The ids came while earlier rows were read: check those rows now rather than at the end.
        const unknown = await firstUnknown();
        if (unknown) throw unknown;
        pending.clear();
      }
      for (const row of rows) {
        count++;
        if (row.kind === 'company') {
          if (known === null) {
            if (!pending.has(row.company_id)) pending.set(row.company_id, count + 1);
          } else if (row.company_id !== lastKnown) {
            if (!known.has(row.company_id)) throw (await firstUnknown()) ?? unknownCompany(row.company_id, count + 1);
            lastKnown = row.company_id;
          }
        }
        // The record (./network-record.ts: blank members left out), encoded without building it.
        encodeNetworkRecord(encoded, row);
        try {
          writer.insertEncoded(row.network, encoded.buf, encoded.len);
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
    const unknown = await firstUnknown();
    if (unknown) throw unknown;
  } catch (e) {
    // A later error must not hide an earlier row's unknown company.
    if (e instanceof SourceError && pending.size > 0) throw (await firstUnknown()) ?? e;
    throw e;
  }
  await writer.writeFile(join(out, NETWORKS_FILE));
  return { count, candidates, ms: Math.round(performance.now() - started) };
}

/** Size of `file`, 0 when it cannot be read (reading it then reports the error). */
function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Builds the network index in a worker thread, which starts at once; `companyIds()` hands it the ids of
 * companies.csv once the main thread has read (and validated) that file — reading it a second time in
 * the worker cost ≈ 4 s of CPU at a million companies.
 */
export function writeNetworkIndexInWorker(
  dir: string,
  out: string,
): { result: Promise<NetworkIndexResult>; companyIds(ids: Iterable<string>): void; stop(): Promise<void> } {
  const w = startBuildWorker<NetworkIndexResult>(new URL('./network-worker.ts', import.meta.url), { dir, out });
  return {
    result: w.result,
    // One string, not an array: cloning a million strings one by one costs far more than one split.
    companyIds: (ids) => w.worker.postMessage([...ids].join('\n')),
    stop: w.stop,
  };
}
