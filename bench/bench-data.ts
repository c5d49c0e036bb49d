/**
 * Data and state for the endpoint benchmarks: generated sources built into a data folder (cached in the
 * temp folder by size and seed), a fresh SQLite state seeded with the generated demo customer (with
 * credits and limits high enough that a benchmark measures answers, not refusals), its tokens and tags,
 * and realistic request mixes drawn from the built data.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { TagRateLimit } from '../core/customer-records.ts';
import { buildDataset } from '../data/build/build.ts';
import { BUILD_MANIFEST, CATALOG_FILE } from '../data/catalog/schema.ts';
import { csvLine } from '../data/generate/csv-writer.ts';
import { generateSources } from '../data/generate/generate.ts';
import { readCustomersFile } from '../data/sources/read.ts';
import { NETWORK_COLUMNS } from '../data/sources/schema.ts';
import { formatIPv4 } from '../server/data/mmdb/address.ts';
import { SqliteStateStore } from '../server/state/sqlite/store.ts';
import { BROWSER_UA } from '../server/testing/browser-agent.ts';
import type { LoadRequest } from './http-load.ts';

export { BROWSER_UA };

export const BENCH_ORIGIN = 'https://www.bench.example';
/** Tags of the bench customer; requests go to them in turn, as to a customer's many sites. */
export const TAG_COUNT = 200;
/** The highest limit a tag may have (TagRateLimit). */
const TAG_LIMIT_MAX = TagRateLimit.maxValue as number;

export interface BenchData {
  dir: string;
  sources: string;
  data: string;
}

/**
 * `loopback`: also map 127.0.0.0/8 to a company network, for browser benchmarks whose visitor can only be
 * the loopback address (a browser cannot send X-Forwarded-For cross-origin without a preflight).
 */
export async function ensureBenchData(companies = 20_000, seed = '1', opts: { loopback?: boolean } = {}): Promise<BenchData> {
  const dir = join(tmpdir(), 'svc-bench', `data-${companies}-${seed}${opts.loopback ? '-loopback' : ''}`);
  const sources = join(dir, 'sources');
  const data = join(dir, 'data');
  if (!existsSync(join(data, BUILD_MANIFEST))) {
    const t0 = performance.now();
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await generateSources({ out: sources, companies, seed });
    if (opts.loopback) {
      const first = readFileSync(join(sources, 'companies.csv'), 'utf8').split('\n')[1].split(',')[0];
      // Every column of networks.csv, named: the type checker fails here when the source format gains one.
      const loopback: Record<(typeof NETWORK_COLUMNS)[number], string> = {
        network: '127.0.0.0/8',
        kind: 'company',
        company_id: first,
        confidence: 'Very High',
        country: 'United States',
        state: 'California',
        city: 'San Francisco',
        privacy: '',
      };
      appendFileSync(join(sources, 'networks.csv'), csvLine(NETWORK_COLUMNS.map((column) => loopback[column])));
    }
    await buildDataset({ in: sources, out: data });
    console.log(`bench data: ${companies.toLocaleString('en-US')} companies generated and built in ${((performance.now() - t0) / 1000).toFixed(1)} s (${dir})`);
  }
  return { dir, sources, data };
}

/**
 * A fresh folder for one benchmark run's state files and logs, `<tmp>/svc-bench/run-<name>-<pid>`, removed
 * when the process exits (the generated data beside it is kept: it is built once and reused).
 */
export function runFolder(name: string): string {
  const work = join(tmpdir(), 'svc-bench', `run-${name}-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  process.once('exit', () => rmSync(work, { recursive: true, force: true }));
  return work;
}

export interface BenchState {
  file: string;
  customer: string;
  tokens: { identification: string; firmographics: string; combined: string };
  tags: string[];
}

/** A fresh state file with the generated demo customer, rich in credits, its tags and tokens. */
export async function seedBenchState(data: BenchData, file: string): Promise<BenchState> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  const seed = readCustomersFile(join(data.sources, 'customers.json')).customers[0];
  const tags = Array.from({ length: TAG_COUNT }, (_, i) => `bench-tag-${i}`);
  const store = new SqliteStateStore(file);
  try {
    await store.importCustomer({
      ...seed,
      identification_credits: 1e12,
      enrichment_credits: 1e12,
      // The tags' limits as high as a tag's may be set: the address mix repeats each visitor address
      // with one tag, and a faster server (or a longer run) would otherwise measure cheap 429s, not answers.
      // The counters are still counted, so metering costs what it costs in production.
      tags: tags.map((tag_id) => ({
        tag_id,
        allowed_domains: ['*.bench.example'],
        scores: true,
        segment_names: true,
        rate_limit: TAG_LIMIT_MAX,
        visitor_rate_limit: TAG_LIMIT_MAX,
      })),
    });
    const token = async (api_group: 'identification' | 'company-firmographics' | 'lead-scoring-firmographics') =>
      (await store.createToken({ customer_id: seed.id, api_group, name: `bench ${api_group}`, rate_limit: 1_000_000 })).secret;
    return {
      file,
      customer: seed.id,
      tokens: {
        identification: await token('identification'),
        firmographics: await token('company-firmographics'),
        combined: await token('lead-scoring-firmographics'),
      },
      tags,
    };
  } finally {
    await store.close();
  }
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * Visitor addresses as a site sees them: half from company networks (Match), a fifth from ISP, hosting
 * and bot networks (Non-actionable Match), the rest anywhere (mostly No Match). Sampled from the built
 * data's verified `network_samples`.
 */
export function ipMix(data: BenchData, n = 2000): string[] {
  const db = new Database(join(data.data, CATALOG_FILE), { readonly: true });
  const samples = db.prepare('SELECT ip, kind FROM network_samples').all() as { ip: string; kind: string }[];
  db.close();
  const company = samples.filter((s) => s.kind === 'company').map((s) => s.ip);
  const other = samples.filter((s) => s.kind !== 'company' && s.kind !== 'none').map((s) => s.ip);
  const rnd = lcg(7);
  const pick = (xs: string[]) => xs[Math.floor(rnd() * xs.length)];
  return Array.from({ length: n }, () => {
    const u = rnd();
    if (u < 0.5 && company.length) return pick(company);
    if (u < 0.7 && other.length) return pick(other);
    return formatIPv4(0x0100_0000 + Math.floor(rnd() * 0xde00_0000));
  });
}

/** Lead emails: known people (most), unknown people at known company domains, free-mail addresses. */
export function emailMix(data: BenchData, n = 2000): string[] {
  const db = new Database(join(data.data, CATALOG_FILE), { readonly: true });
  const people = (db.prepare('SELECT email FROM people ORDER BY people_id LIMIT 20000').all() as { email: string }[]).map((r) => r.email);
  const domains = (db.prepare('SELECT domain FROM domains LIMIT 20000').all() as { domain: string }[]).map((r) => r.domain);
  db.close();
  const rnd = lcg(11);
  const pick = (xs: string[]) => xs[Math.floor(rnd() * xs.length)];
  return Array.from({ length: n }, (_, i) => {
    const u = rnd();
    if (u < 0.6 && people.length) return pick(people);
    if (u < 0.9 && domains.length) return `lead${i}@${pick(domains)}`;
    return `someone${i}@gmail.com`;
  });
}

export function identificationRequests(state: BenchState, ips: string[], mode: 'token' | 'tag'): LoadRequest[] {
  return ips.map(
    (ip, i): LoadRequest =>
      mode === 'token'
        ? { path: `/v3/company/details?ip=${ip}`, headers: { authorization: `Token ${state.tokens.identification}`, 'user-agent': BROWSER_UA } }
        : {
            path: `/v3/company/details?tag=${state.tags[i % state.tags.length]}`,
            headers: { origin: BENCH_ORIGIN, referer: `${BENCH_ORIGIN}/pricing`, 'x-forwarded-for': ip, 'user-agent': BROWSER_UA },
          },
  );
}

export function enrichmentRequests(token: string, path: string, emails: string[]): LoadRequest[] {
  return emails.map((email) => ({
    method: 'POST',
    path,
    headers: { authorization: `Token ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, country: 'United States' }).toString(),
  }));
}
