/**
 * `data build --in DIR --out DIR`: turns a sources folder into what a server node serves:
 *   networks.mmdb  network index (our MMDB writer; IPv6 tree when an IPv6 network exists) → { kind, confidence, company_id?, country?, state?, city? }
 *   catalog.db     read-only SQLite: companies, domains, people, intent, engagement, topics, verified sample addresses
 * Both are written to temp files, fsynced and renamed into place, so a running server never sees half a file.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Address4, Address6 } from 'ip-address';
import { Reader } from 'maxmind';
import { CompanyRow } from '../../core/catalog-records.ts';
import { normaliseDomain } from '../catalog/keys.ts';
import { BUILD_MANIFEST, CATALOG_DDL, CATALOG_FILE, CATALOG_VERSION, NETWORKS_FILE, OTHER_INDEXES, PEOPLE_INDEXES } from '../catalog/schema.ts';
import { writeFileAtomic } from '../mmdb/atomic-file.ts';
import { parseNetwork } from '../mmdb/network.ts';
import { estimateRows, type Progress, SILENT } from '../progress.ts';
import { readCsvBatches, readOptionalCsvBatches, SourceError, sourcePath } from '../sources/read.ts';
import { COMPANY_COLUMNS, DomainRow, EngagementRow, IntentRow, SOURCE_FILES } from '../sources/schema.ts';
import { inBatches, openBuildDatabase } from './bulk.ts';
import { type Candidate, writeNetworkIndex, writeNetworkIndexInWorker } from './network-index.ts';
import type { NetworkRecord } from './network-record.ts';
import { buildPeopleFileInWorker, copyOtherTables, loadPeople } from './people.ts';
import { loadTopics } from './topics.ts';

export interface BuildSummary {
  out: string;
  companies: number;
  networks: number;
  domains: number;
  people: number;
  intent: number;
  engagement: number;
  /** Rows of topics.csv (third-party topic surge). */
  topics: number;
  samples: number;
  bytes: { networks: number; catalog: number };
  ms: number;
  /**
   * Where the time went: building networks.mmdb, loading the people table (each in a worker thread for
   * big sources, so they overlap), and the catalog as a whole (the main thread's loads, its indexes and
   * copying the people table in).
   */
  phases: { networks_ms: number; people_ms: number; catalog_ms: number };
}

/** networks.csv (people.csv) from this size on is turned into networks.mmdb (the people table) in a worker thread, alongside the catalog. */
const WORKER_MIN_BYTES = 16 * 2 ** 20;
/** Documentation range (RFC 5737): the generator never allocates it, so it is our "no network" sample. */
const NO_NETWORK_SAMPLE = '203.0.113.77';

export async function buildDataset(opts: {
  in: string;
  out: string;
  /** Default: by the size of networks.csv. */ networksInWorker?: boolean;
  /** Default: by the size of people.csv. */ peopleInWorker?: boolean;
  /** Terminal progress (default silent). */ progress?: Progress;
}): Promise<BuildSummary> {
  const progress = opts.progress ?? SILENT;
  const started = Date.now();
  for (const key of ['companies', 'networks'] as const) {
    if (!existsSync(sourcePath(opts.in, key)))
      throw new SourceError(`${sourcePath(opts.in, key)}: missing (a sources folder needs ${SOURCE_FILES.companies} and ${SOURCE_FILES.networks})`);
  }
  mkdirSync(opts.out, { recursive: true });
  const tmpCatalog = join(opts.out, `${CATALOG_FILE}.tmp-${process.pid}`);
  // With the people worker, the main thread's tables go to a file of their own, copied at the end into the
  // worker's file, which becomes the catalog (people.ts).
  const tmpMain = join(opts.out, `${CATALOG_FILE}.main-tmp-${process.pid}`);
  rmSync(tmpCatalog, { force: true });
  rmSync(tmpMain, { force: true });

  // Big sources: networks.mmdb and the people table are built in worker threads meanwhile
  // (network-index.ts, people.ts): the machine has more than one core.
  const sizeOf = (key: keyof typeof SOURCE_FILES) => (existsSync(sourcePath(opts.in, key)) ? statSync(sourcePath(opts.in, key)).size : 0);
  const peopleInWorker = opts.peopleInWorker ?? sizeOf('people') >= WORKER_MIN_BYTES;
  let db = openBuildDatabase(peopleInWorker ? tmpMain : tmpCatalog);
  db.exec(CATALOG_DDL);
  const networksWorker = (opts.networksInWorker ?? sizeOf('networks') >= WORKER_MIN_BYTES) ? writeNetworkIndexInWorker(opts.in, opts.out) : null;
  let peopleDone = 0;
  let peopleTick: ((n: number) => void) | undefined;
  const peopleWorker = peopleInWorker
    ? buildPeopleFileInWorker(opts.in, tmpCatalog, (n) => {
        peopleDone = n;
        peopleTick?.(n);
      })
    : null;
  try {
    const companyIds = new Set<string>();
    const phase = <T>(name: string, work: (tick: (n: number) => void) => Promise<T>, file?: keyof typeof SOURCE_FILES): Promise<T> => {
      progress.phase(name, file ? estimateRows(sourcePath(opts.in, file)) : undefined);
      return work((n) => progress.update(n)).finally(() => progress.end());
    };
    const companies = await phase('companies', (tick) => loadCompanies(db, opts.in, companyIds, tick), 'companies');
    networksWorker?.companyIds(companyIds);
    const inline = networksWorker ? null : await phase('networks', (tick) => writeNetworkIndex(opts.in, opts.out, companyIds, tick), 'networks');
    const domains = await phase('domains', (tick) => loadDomains(db, opts.in, companyIds, tick), 'domains');
    const peopleStarted = Date.now();
    const peopleInline = peopleWorker
      ? null
      : { count: await phase('people', (tick) => loadPeople(db, opts.in, tick), 'people'), ms: Date.now() - peopleStarted };
    let intent: number;
    let engagement: number;
    let topics: number;
    try {
      intent = await phase(
        'intent',
        (tick) =>
          loadRows(db, opts.in, 'intent', IntentRow, 'INSERT INTO intent VALUES (?, ?, ?, ?)', (r) => [r.company_id, r.topic, r.strength, r.observed_at], tick),
        'intent',
      );
      engagement = await phase(
        'engagement',
        (tick) =>
          loadRows(
            db,
            opts.in,
            'engagement',
            EngagementRow,
            'INSERT INTO engagement VALUES (?, ?, ?, ?)',
            (r) => [r.people_id, r.activity, r.count, r.observed_at],
            tick,
          ),
        'engagement',
      );
      topics = await phase('topics', (tick) => loadTopics(db, opts.in, companyIds, tick), 'topics');
    } catch (e) {
      // people.csv comes before these files: its error, if any, is the one to report.
      await peopleWorker?.result;
      throw e;
    }
    // The main thread's own tables get their indexes while the people worker may still be loading.
    await phase('indexes', async () => db.exec(OTHER_INDEXES));
    // The workers started with the build; what is left of them shows as phases of their own.
    const people =
      peopleInline ??
      (await phase(
        'people',
        (tick) => {
          peopleTick = tick;
          tick(peopleDone);
          return peopleWorker!.result;
        },
        'people',
      ));
    await phase(peopleWorker ? 'catalog copy' : 'people index', async () => {
      if (!peopleWorker) return void db.exec(PEOPLE_INDEXES);
      db.close();
      db = openBuildDatabase(tmpCatalog);
      copyOtherTables(db, tmpMain);
      rmSync(tmpMain, { force: true });
    });
    const catalogMs = Date.now() - started - (inline?.ms ?? 0); // the main thread's share
    const { count: networks, candidates, ms: networksMs } = inline ?? (await phase('networks', () => networksWorker!.result));
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
      people: people.count,
      intent,
      engagement,
      topics,
      samples,
      bytes: { networks: statSync(join(opts.out, NETWORKS_FILE)).size, catalog: statSync(join(opts.out, CATALOG_FILE)).size },
      ms: Date.now() - started,
      phases: { networks_ms: networksMs, people_ms: people.ms, catalog_ms: catalogMs },
    };
    await writeFileAtomic(join(opts.out, BUILD_MANIFEST), Buffer.from(JSON.stringify({ ...summary, built_at: new Date().toISOString() }, null, 2) + '\n'));
    return summary;
  } catch (e) {
    await networksWorker?.stop();
    await peopleWorker?.stop();
    if (db.open) db.close();
    rmSync(tmpCatalog, { force: true });
    rmSync(tmpMain, { force: true });
    throw e;
  }
}

/** True when the built output is missing, of another catalog version, or older than any source file (for `npm start`). */
export function isStale(inDir: string, outDir: string): boolean {
  const outs = [join(outDir, NETWORKS_FILE), join(outDir, CATALOG_FILE)];
  if (!outs.every(existsSync)) return true;
  if (catalogVersion(join(outDir, CATALOG_FILE)) !== String(CATALOG_VERSION)) return true;
  const built = Math.min(...outs.map((f) => statSync(f).mtimeMs));
  return Object.values(SOURCE_FILES).some((f) => existsSync(join(inDir, f)) && statSync(join(inDir, f)).mtimeMs > built);
}

/** The `version` a catalog file was built with (null: unreadable, or none recorded). */
function catalogVersion(file: string): string | null {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT value FROM meta WHERE key = 'version'").pluck().get() as string | undefined) ?? null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

async function loadCompanies(db: Database.Database, dir: string, ids: Set<string>, tick?: (n: number) => void): Promise<number> {
  // Positional parameters: binding by name costs a property lookup per column and row (≈ 40% more).
  const insert = db.prepare(`INSERT INTO companies (${COMPANY_COLUMNS.join(', ')}) VALUES (${COMPANY_COLUMNS.map(() => '?').join(', ')})`);
  const primary = db.prepare('INSERT OR IGNORE INTO domains VALUES (?, ?, 1)');
  // One parameter array for every row: a fresh one per row was garbage the main thread collected a million times.
  const params: string[] = new Array(COMPANY_COLUMNS.length);
  return inBatches(db, readCsvBatches(sourcePath(dir, 'companies'), CompanyRow), tick, (row) => {
    if (ids.has(row.company_id)) throw new SourceError(`${sourcePath(dir, 'companies')}: duplicate company_id ${row.company_id}`);
    ids.add(row.company_id);
    for (let c = 0; c < COMPANY_COLUMNS.length; c++) params[c] = row[COMPANY_COLUMNS[c]];
    insert.run(params);
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

async function loadRows<T>(
  db: Database.Database,
  dir: string,
  key: 'intent' | 'engagement',
  schema: import('zod').ZodType<T>,
  sql: string,
  map: (r: T) => unknown[],
  tick?: (n: number) => void,
): Promise<number> {
  const insert = db.prepare(sql);
  return inBatches(db, readOptionalCsvBatches(dir, SOURCE_FILES[key], schema), tick, (row) => void insert.run(map(row)));
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

/** First, middle and last address of a CIDR or an inclusive range, either family (IPv6 in RFC 5952 form). */
function probeAddresses(network: string): string[] {
  const net = parseNetwork(network);
  const first = BigInt(net.start);
  const last = BigInt(net.end);
  const text = (v: bigint) => (net.family === 4 ? Address4.fromBigInt(v).correctForm() : Address6.fromBigInt(v).correctForm());
  return [...new Set([first + 1n <= last ? first + 1n : first, (first + last) / 2n, last])].map(text);
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
