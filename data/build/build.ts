/**
 * `data build --in DIR --out DIR`: turns a sources folder into what a server node serves:
 *   networks.mmdb  IPv4 network index (our MMDB writer) → { kind, confidence, company_id?, country?, state?, city? }
 *   catalog.db     read-only SQLite: companies, domains, people, intent, engagement, verified sample addresses
 * Both are written to temp files, fsynced and renamed into place, so a running server never sees half a file.
 */
import { closeSync, existsSync, readFileSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Address4 } from 'ip-address';
import { Reader } from 'maxmind';
import { BUILD_MANIFEST, CATALOG_DDL, CATALOG_FILE, CATALOG_INDEXES, CATALOG_VERSION, NETWORKS_FILE } from '../catalog/schema.ts';
import { writeFileAtomic } from '../mmdb/atomic-file.ts';
import { linkedinKey, normaliseDomain } from '../catalog/keys.ts';
import { readCsvBatches, readOptionalCsvBatches, sourcePath, SourceError } from '../sources/read.ts';
import {
  COMPANY_COLUMNS,
  CompanyRow,
  DomainRow,
  EngagementRow,
  IntentRow,
  PERSON_COLUMNS,
  PersonRow,
  SOURCE_FILES,
} from '../sources/schema.ts';
import { writeNetworkIndex, writeNetworkIndexInWorker, type Candidate } from './network-index.ts';
import type { NetworkRecord } from './network-record.ts';
import { estimateRows, SILENT, type Progress } from '../progress.ts';

export interface BuildSummary {
  out: string;
  companies: number;
  networks: number;
  domains: number;
  people: number;
  intent: number;
  engagement: number;
  samples: number;
  bytes: { networks: number; catalog: number };
  ms: number;
}

/** networks.csv from this size on is turned into networks.mmdb in a worker thread, alongside the catalog. */
const NETWORK_WORKER_MIN_BYTES = 16 * 2 ** 20;
/** Documentation range (RFC 5737): the generator never allocates it, so it is our "no network" sample. */
const NO_NETWORK_SAMPLE = '203.0.113.77';

export async function buildDataset(opts: { in: string; out: string; /** Default: by the size of networks.csv. */ networksInWorker?: boolean; /** Terminal progress (default silent). */ progress?: Progress }): Promise<BuildSummary> {
  const progress = opts.progress ?? SILENT;
  const started = Date.now();
  for (const key of ['companies', 'networks'] as const) {
    if (!existsSync(sourcePath(opts.in, key))) throw new SourceError(`${sourcePath(opts.in, key)}: missing (a sources folder needs ${SOURCE_FILES.companies} and ${SOURCE_FILES.networks})`);
  }
  mkdirSync(opts.out, { recursive: true });
  const tmpCatalog = join(opts.out, `${CATALOG_FILE}.tmp-${process.pid}`);
  rmSync(tmpCatalog, { force: true });
  const db = new Database(tmpCatalog);
  // A throwaway file being bulk-loaded: durability per statement buys nothing; we fsync once at the end.
  // (journal_mode = OFF is silently refused in better-sqlite3's defensive mode; MEMORY keeps the journal
  // off the disk, which is what we want: a failed build deletes the file anyway.)
  db.pragma('journal_mode = MEMORY');
  db.pragma('synchronous = OFF');
  // Bulk load: keyed inserts and the index builds at the end stay in memory instead of spilling to disk.
  db.pragma('cache_size = -262144');
  db.pragma('temp_store = MEMORY');
  db.pragma('locking_mode = EXCLUSIVE');
  db.exec(CATALOG_DDL);

  // Big sources: networks.mmdb is built in a worker thread meanwhile (network-index.ts).
  const inWorker = opts.networksInWorker ?? statSync(sourcePath(opts.in, 'networks')).size >= NETWORK_WORKER_MIN_BYTES;
  const worker = inWorker ? writeNetworkIndexInWorker(opts.in, opts.out) : null;
  worker?.result.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
  try {
    const companyIds = new Set<string>();
    const phase = <T>(name: string, work: (tick: (n: number) => void) => Promise<T>, file?: keyof typeof SOURCE_FILES): Promise<T> => {
      progress.phase(name, file ? estimateRows(sourcePath(opts.in, file)) : undefined);
      return work((n) => progress.update(n)).finally(() => progress.end());
    };
    const companies = await phase('companies', (tick) => loadCompanies(db, opts.in, companyIds, tick), 'companies');
    worker?.companyIds(companyIds);
    const inline = worker ? null : await phase('networks', (tick) => writeNetworkIndex(opts.in, opts.out, companyIds, tick), 'networks');
    const domains = await phase('domains', (tick) => loadDomains(db, opts.in, companyIds, tick), 'domains');
    const people = await phase('people', (tick) => loadRows(db, opts.in, 'people', PersonRow, `INSERT INTO people (${PERSON_COLUMNS.join(', ')}, email_lc, linkedin_key) VALUES (${PERSON_COLUMNS.map(() => '?').join(', ')}, ?, ?)`, (r) => [
      ...PERSON_COLUMNS.map((c) => r[c]),
      r.email.trim().toLowerCase(),
      r.linkedin_url ? linkedinKey(r.linkedin_url) : '',
    ], tick), 'people');
    const intent = await phase('intent', (tick) => loadRows(db, opts.in, 'intent', IntentRow, 'INSERT INTO intent VALUES (?, ?, ?, ?)', (r) => [r.company_id, r.topic, r.strength, r.observed_at], tick), 'intent');
    const engagement = await phase('engagement', (tick) => loadRows(db, opts.in, 'engagement', EngagementRow, 'INSERT INTO engagement VALUES (?, ?, ?, ?)', (r) => [r.people_id, r.activity, r.count, r.observed_at], tick), 'engagement');
    await phase('indexes', async () => db.exec(CATALOG_INDEXES));
    // The worker started with the build; what is left of it shows as its own phase.
    const { count: networks, candidates } = inline ?? (await phase('networks', () => worker!.result));
    const samples = writeSamples(db, join(opts.out, NETWORKS_FILE), candidates);
    const meta = db.prepare('INSERT INTO meta VALUES (?, ?)');
    meta.run('version', String(CATALOG_VERSION));
    meta.run('built_at', new Date().toISOString());
    meta.run('source', opts.in);
    db.close();
    fsyncFile(tmpCatalog);
    renameSync(tmpCatalog, join(opts.out, CATALOG_FILE));
    const summary: BuildSummary = {
      out: opts.out,
      companies,
      networks,
      domains,
      people,
      intent,
      engagement,
      samples,
      bytes: { networks: statSync(join(opts.out, NETWORKS_FILE)).size, catalog: statSync(join(opts.out, CATALOG_FILE)).size },
      ms: Date.now() - started,
    };
    await writeFileAtomic(join(opts.out, BUILD_MANIFEST), Buffer.from(JSON.stringify({ ...summary, built_at: new Date().toISOString() }, null, 2) + '\n'));
    return summary;
  } catch (e) {
    await worker?.stop();
    if (db.open) db.close();
    rmSync(tmpCatalog, { force: true });
    throw e;
  }
}

/** True when the built output is missing or older than any source file (for `npm start`). */
export function isStale(inDir: string, outDir: string): boolean {
  const outs = [join(outDir, NETWORKS_FILE), join(outDir, CATALOG_FILE)];
  if (!outs.every(existsSync)) return true;
  const built = Math.min(...outs.map((f) => statSync(f).mtimeMs));
  return Object.values(SOURCE_FILES).some((f) => existsSync(join(inDir, f)) && statSync(join(inDir, f)).mtimeMs > built);
}

async function loadCompanies(db: Database.Database, dir: string, ids: Set<string>, tick?: (n: number) => void): Promise<number> {
  // Positional parameters: binding by name costs a property lookup per column and row (≈ 40% more).
  const insert = db.prepare(`INSERT INTO companies (${COMPANY_COLUMNS.join(', ')}) VALUES (${COMPANY_COLUMNS.map(() => '?').join(', ')})`);
  const primary = db.prepare('INSERT OR IGNORE INTO domains VALUES (?, ?, 1)');
  return inBatches(db, readCsvBatches(sourcePath(dir, 'companies'), CompanyRow), tick, (row) => {
    if (ids.has(row.company_id)) throw new SourceError(`${sourcePath(dir, 'companies')}: duplicate company_id ${row.company_id}`);
    ids.add(row.company_id);
    insert.run(COMPANY_COLUMNS.map((c) => row[c]));
    primary.run(normaliseDomain(row.domain), row.company_id);
  });
}

async function loadDomains(db: Database.Database, dir: string, ids: Set<string>, tick?: (n: number) => void): Promise<number> {
  const insert = db.prepare('INSERT OR IGNORE INTO domains VALUES (?, ?, 0)');
  return inBatches(db, readOptionalCsvBatches(dir, SOURCE_FILES.domains, DomainRow), tick, (row) => {
    if (!ids.has(row.company_id)) throw new SourceError(`${SOURCE_FILES.domains}: unknown company_id ${row.company_id} for ${row.domain}`);
    insert.run(normaliseDomain(row.domain), row.company_id);
  });
}

async function loadRows<T>(db: Database.Database, dir: string, key: 'people' | 'intent' | 'engagement', schema: import('zod').ZodType<T>, sql: string, map: (r: T) => unknown[], tick?: (n: number) => void): Promise<number> {
  const insert = db.prepare(sql);
  return inBatches(db, readOptionalCsvBatches(dir, SOURCE_FILES[key], schema), tick, (row) => void insert.run(map(row)));
}

/** Inserts inside transactions of ≥ 50k rows (one per row would be ~100× slower), read in batches of rows. */
async function inBatches<T>(db: Database.Database, batches: AsyncIterable<T[]>, tick: ((n: number) => void) | undefined, each: (row: T) => void): Promise<number> {
  let n = 0;
  let uncommitted = 0;
  db.exec('BEGIN');
  for await (const rows of batches) {
    for (const row of rows) each(row);
    n += rows.length;
    tick?.(n);
    uncommitted += rows.length;
    if (uncommitted >= 50_000) {
      db.exec('COMMIT; BEGIN');
      uncommitted = 0;
    }
  }
  db.exec('COMMIT');
  return n;
}

/**
 * Keeps the candidate addresses that really resolve to their network's kind/company in the built file
 * (a nested more specific network may own an address), plus one address that resolves to nothing.
 */
function writeSamples(db: Database.Database, mmdbFile: string, candidates: Candidate[]): number {
  const reader = new Reader(readFileSync(mmdbFile)) as unknown as { get(ip: string): NetworkRecord | null };
  const insert = db.prepare('INSERT OR IGNORE INTO network_samples VALUES (?, ?, ?, ?)');
  let n = 0;
  db.exec('BEGIN');
  for (const c of candidates) {
    for (const ip of probeAddresses(c.network)) {
      const hit = reader.get(ip);
      if (hit && hit.kind === c.kind && (hit.company_id ?? '') === c.company_id) {
        n += insert.run(ip, c.kind, c.company_id, c.network).changes;
        break;
      }
    }
  }
  if (reader.get(NO_NETWORK_SAMPLE) === null) n += insert.run(NO_NETWORK_SAMPLE, 'none', '', '').changes;
  db.exec('COMMIT');
  return n;
}

/** First, middle and last address of a CIDR or an inclusive range. */
function probeAddresses(network: string): string[] {
  let first: bigint;
  let last: bigint;
  if (network.includes('-')) {
    const [a, b] = network.split('-').map((s) => new Address4(s.trim()));
    first = a.bigInt();
    last = b.bigInt();
  } else {
    const net = new Address4(network);
    first = net.startAddress().bigInt();
    last = net.endAddress().bigInt();
  }
  return [...new Set([first + 1n <= last ? first + 1n : first, (first + last) / 2n, last])].map((v) => Address4.fromBigInt(v).correctForm());
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
