/**
 * `npm run bench -- enrich [--rows N]` (default 1,000,000): `svc enrich` end to end on a generated CRM
 * export, as a user runs it — the CLI process (tsx) under /usr/bin/time -v: wall time, CPU, peak RSS —
 * on the sample data (`data/sample`, built once into the temp folder) and a fresh SQLite state whose demo
 * customer has credits enough that the job measures answers, not refusals. The input is deterministic:
 * rows drawn from the sample's people and companies (known people, unknown people at known domains,
 * free mail, unknown domains, malformed and blank emails). Baseline in the same run: the same file read with
 * the project's CSV reader and written back with the same number of added (blank) columns — the floor of
 * any job that must read and write it.
 */
import { createWriteStream, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { buildDataset } from '../data/build/build.ts';
import { BUILD_MANIFEST } from '../data/catalog/schema.ts';
import { csvRecordBatches } from '../data/sources/csv-records.ts';
import { readCustomersFile } from '../data/sources/read.ts';
import { ADDED_COLUMNS } from '../server/cli/enrich-job.ts';
import { SqliteStateStore } from '../server/state/sqlite/store.ts';
import { measured } from './build.ts';
import { fmt, record } from './results.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const SAMPLE = join(ROOT, 'data/sample');

/** The sample's people (email, names) and company domains, from the source CSVs. */
async function sampleLeads(): Promise<{ people: string[][]; domains: string[] }> {
  const people: string[][] = [];
  for await (const batch of csvRecordBatches(join(SAMPLE, 'people.csv'))) for (const r of batch) people.push([r.fields[1]!, r.fields[2]!, r.fields[3]!]);
  const domains: string[] = [];
  for await (const batch of csvRecordBatches(join(SAMPLE, 'companies.csv'))) for (const r of batch) domains.push(r.fields[2]!);
  return { people: people.slice(1), domains: domains.slice(1).filter(Boolean) };
}

/** N contact rows (id, email, first and last name, a note), the same for the same N on every run. */
async function writeContacts(file: string, rows: number): Promise<void> {
  const { people, domains } = await sampleLeads();
  let x = 12345;
  const next = (n: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x >>> 8) % n;
  };
  const out = createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write(stringify([['contact_id', 'email', 'first_name', 'last_name', 'note']]));
  const chunk: string[][] = [];
  for (let i = 0; i < rows; i++) {
    const kind = next(100);
    const [email, first, last] = people[next(people.length)]!;
    const domain = domains[next(domains.length)]!;
    const address =
      kind < 60
        ? email!
        : kind < 80
          ? `${first!.toLowerCase()}.${last!.toLowerCase().replace(/\W+/g, '')}${i % 1000}@${domain}`
          : kind < 90
            ? `${first!.toLowerCase()}${i % 997}@gmail.com`
            : kind < 95
              ? `lead${i}@unknown-${i % 5000}.example`
              : kind < 98
                ? `not an email ${i}`
                : '';
    chunk.push([`C${String(i).padStart(7, '0')}`, address, first!, last!, i % 10 === 0 ? `met at "Expo", ${i % 31} Oct` : `row ${i}`]);
    if (chunk.length === 10_000) {
      await write(stringify(chunk));
      chunk.length = 0;
    }
  }
  if (chunk.length > 0) await write(stringify(chunk));
  await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
}

/** The floor: read every record with the project's reader, write it back with the added columns blank. */
async function csvFloor(input: string, output: string): Promise<number> {
  const t0 = performance.now();
  const fh = await open(output, 'w');
  const blank = ADDED_COLUMNS.map(() => '');
  for await (const batch of csvRecordBatches(input)) await fh.write(stringify(batch.map((r) => [...r.fields, ...blank])));
  await fh.close();
  return performance.now() - t0;
}

export async function benchEnrich(args: string[]): Promise<void> {
  const i = args.indexOf('--rows');
  const rows = i >= 0 ? Number(args[i + 1]) : 1_000_000;
  const dir = join(tmpdir(), 'svc-bench', 'enrich');
  const data = join(dir, 'data');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(data, BUILD_MANIFEST))) await buildDataset({ in: SAMPLE, out: data });
  const input = join(dir, `contacts-${rows}.csv`);
  if (!existsSync(input)) {
    const t0 = performance.now();
    await writeContacts(input, rows);
    console.log(`input: ${rows.toLocaleString('en-US')} rows, ${fmt.mib(statSync(input).size)} generated in ${fmt.s(performance.now() - t0)}`);
  }

  const state = join(dir, 'svc.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(state + suffix, { force: true });
  const seed = readCustomersFile(join(SAMPLE, 'customers.json')).customers[0]!;
  const store = new SqliteStateStore(state);
  await store.importCustomer({ ...seed, enrichment_credits: 1e12 });
  await store.close();

  const output = join(dir, 'enriched.csv');
  for (const f of [output, `${output}.progress`]) rmSync(f, { force: true });
  Object.assign(process.env, { SVC_DATA: data, SVC_STATE: state, SVC_LOG: 'error' });
  delete process.env.SVC_REDIS_URL;
  const run = await measured(['enrich', '--in', input, '--out', output, '--customer', seed.id, '--json']);
  const summary = JSON.parse(run.stdout) as { rows: number; statuses: Record<string, number>; seconds: number; rows_per_second: number };
  if (summary.rows !== rows) throw new Error(`enriched ${summary.rows} rows of ${rows}`);
  const outBytes = statSync(output).size;
  const floorMs = await csvFloor(input, join(dir, 'floor.csv'));
  const ledger = new SqliteStateStore(state);
  const charged = (await ledger.usage(seed.id)).reduce((n, u) => n + u.charges, 0);
  await ledger.close();
  for (const f of [output, join(dir, 'floor.csv')]) rmSync(f, { force: true });

  const rate = rows / (run.ms / 1000);
  const statuses = Object.entries(summary.statuses)
    .map(([s, n]) => `${s} ${n.toLocaleString('en-US')}`)
    .join(', ');
  const extrapolated = rows === 1_000_000 ? '' : `; extrapolated to 1,000,000 rows at this rate: ${fmt.s((1e6 / rate) * 1000)} (not measured)`;
  record({
    benchmark: `svc enrich, ${rows.toLocaleString('en-US')} rows (generated CRM export, sample data: 2,000 companies, 10,954 people; SQLite state)`,
    figures:
      `end to end ${fmt.s(run.ms)} = ${fmt.rate(rate)} rows/s (job alone ${fmt.rate(summary.rows_per_second)} rows/s), CPU ${fmt.s(run.cpuMs)}, peak RSS ${fmt.mib(run.peakRss)}; ` +
      `input ${fmt.mib(statSync(input).size)}, output ${fmt.mib(outBytes)}; rows ${statuses}; ${charged.toLocaleString('en-US')} credits charged${extrapolated}`,
    ratio: `job/CSV floor (read + write the same rows, ${fmt.s(floorMs)}) ${fmt.x(run.ms / floorMs)}`,
  });
}
