/**
 * Lookup: IP string → network record, on network indexes of 10 thousand, 1 million and 5 million networks.
 *
 *   ours      server/data/mmdb-reader.ts (what the server uses)
 *   maxmind   the `maxmind` package's default reader (`maxmind.open(file)`: tiny-lru cache of 10,000)  ← baseline
 *   no-cache  the `maxmind` package's Reader without a cache (what network-index.ts used before ours)
 *   floor     parse + binary search over a sorted array of resolved range starts → data offset (no decode)
 *
 * Addresses: "random" (uniform over the IPv4 space: most fall outside any network, a few in big ISP blocks)
 * and "edges" (first or last address of a resolved range that has data: every one decodes a record).
 * Timing: batches of 1,000 lookups, rounds interleaved across readers; the figure is the median over batches
 * of the mean ns per lookup in a batch.
 *
 *   npm run bench -- lookup                          # 10k, 1M and 5M synthetic networks
 *   npm run bench -- lookup --sizes 10000,1000000    # chosen sizes
 *   npm run bench -- lookup --mmdb var/data/networks.mmdb   # a built file instead of synthetic ones
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import maxmind, { Reader, type Response } from 'maxmind';
import { MmdbWriter } from '../data/mmdb/writer.ts';
import { formatIPv4, MmdbReader, parseIPv4 } from '../server/data/mmdb-reader.ts';
import { fmt, median, record } from './results.ts';

const DEFAULT_SIZES = [10_000, 1_000_000, 5_000_000];
const SAMPLE = 50_000;
const BATCH = 1_000;
const ROUNDS = 4;
/** Bump when the synthetic generator changes: cached files are keyed by it. */
const SYNTHETIC_VERSION = 1;

export async function benchLookup(args: string[]): Promise<void> {
  const mmdbAt = args.indexOf('--mmdb');
  if (mmdbAt >= 0) {
    await benchFile(args[mmdbAt + 1], `built file ${args[mmdbAt + 1]}`);
    return;
  }
  const sizesAt = args.indexOf('--sizes');
  const sizes = sizesAt >= 0 ? args[sizesAt + 1].split(',').map((s) => Number(s.replaceAll('_', ''))) : DEFAULT_SIZES;
  for (const n of sizes) {
    const file = await syntheticFile(n);
    await benchFile(file, `${n.toLocaleString('en-US')} synthetic networks`);
  }
}

async function benchFile(file: string, label: string): Promise<void> {
  const buf = readFileSync(file);
  const t0 = performance.now();
  const ours = new MmdbReader(buf);
  const openMs = performance.now() - t0;
  const maxmindDefault = await maxmind.open(file);
  const noCache = new Reader(buf);
  const meta = ours.metadata;
  const runs = resolvedRuns(buf, meta.nodeCount, meta.recordSize, meta.searchTreeSize + 16);
  console.log(
    `${label}: ${fmt.mib(buf.length)}, ${meta.nodeCount.toLocaleString('en-US')} nodes, ${meta.recordSize}-bit records, ${runs.count.toLocaleString('en-US')} resolved ranges; our reader opens in ${fmt.ms(openMs)}`,
  );

  const rnd = lcg(12345);
  const random = Array.from({ length: SAMPLE }, () => formatIPv4(Math.floor(rnd() * 2 ** 32)));
  const withData: number[] = [];
  for (let i = 0; i < runs.count; i++) if (runs.offsets[i] >= 0) withData.push(i);
  const edges = Array.from({ length: SAMPLE }, () => {
    const i = withData[Math.floor(rnd() * withData.length)];
    const last = i + 1 < runs.count ? runs.starts[i + 1] - 1 : 0xffff_ffff;
    return formatIPv4(rnd() < 0.5 ? runs.starts[i] : last);
  });

  // Sanity: every reader agrees on every sampled address (the floor on the record's offset).
  for (const ip of [...random.slice(0, 2000), ...edges.slice(0, 2000)]) {
    const a = JSON.stringify(ours.get(ip));
    if (a !== JSON.stringify(maxmindDefault.get(ip)) || a !== JSON.stringify(noCache.get(ip))) throw new Error(`readers disagree on ${ip}`);
    if (floorLookup(runs, ip) !== ours.dataOffset(parseIPv4(ip))) throw new Error(`floor disagrees on ${ip}`);
  }

  const readers: [string, (ips: string[], out: number[]) => number][] = [
    ['ours', (ips, out) => timeOurs(ours, ips, out)],
    ['maxmind', (ips, out) => timeMaxmind(maxmindDefault, ips, out)],
    ['no-cache', (ips, out) => timeNoCache(noCache, ips, out)],
    ['floor', (ips, out) => timeFloor(runs, ips, out)],
  ];
  const samples = new Map<string, { random: number[]; edges: number[] }>(readers.map(([n]) => [n, { random: [], edges: [] }]));
  let sink = 0;
  for (const [, fn] of readers) sink += fn(random, []) + fn(edges, []); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of readers) {
      sink += fn(random, samples.get(name)!.random);
      sink += fn(edges, samples.get(name)!.edges);
    }
  }
  const med = (name: string, set: 'random' | 'edges') => median(samples.get(name)![set]);
  console.log(`   ${'reader'.padEnd(10)} ${'random'.padStart(10)} ${'edges'.padStart(10)}   (median ns per lookup; sink ${sink})`);
  for (const [name] of readers) console.log(`   ${name.padEnd(10)} ${fmt.ns(med(name, 'random')).padStart(10)} ${fmt.ns(med(name, 'edges')).padStart(10)}`);

  const figures = readers.map(([n]) => `${n} ${fmt.ns(med(n, 'random'))} random / ${fmt.ns(med(n, 'edges'))} edges`).join('; ');
  const ratio = (set: 'random' | 'edges') =>
    `maxmind/ours ${fmt.x(med('maxmind', set) / med('ours', set))}, ours/floor ${fmt.x(med('ours', set) / med('floor', set))}`;
  record({
    benchmark: `lookup, ${label} (${fmt.mib(statSync(file).size)}, ${meta.recordSize}-bit)`,
    figures: `${figures}; open ${fmt.ms(openMs)}`,
    ratio: `random: ${ratio('random')}; edges: ${ratio('edges')}`,
  });
}

// One timing loop per reader on purpose: a shared loop would see several receiver types at `r.get`,
// turn polymorphic in V8 and charge every reader the dispatch cost, distorting the comparison.
function timeOurs(r: MmdbReader, ips: string[], out: number[]): number {
  let hits = 0;
  for (let b = 0; b + BATCH <= ips.length; b += BATCH) {
    const t = process.hrtime.bigint();
    for (let i = b; i < b + BATCH; i++) if (r.get(ips[i]) !== null) hits++;
    out.push(Number(process.hrtime.bigint() - t) / BATCH);
  }
  return hits;
}

function timeMaxmind(r: Reader<Response>, ips: string[], out: number[]): number {
  let hits = 0;
  for (let b = 0; b + BATCH <= ips.length; b += BATCH) {
    const t = process.hrtime.bigint();
    for (let i = b; i < b + BATCH; i++) if (r.get(ips[i]) !== null) hits++;
    out.push(Number(process.hrtime.bigint() - t) / BATCH);
  }
  return hits;
}

function timeNoCache(r: Reader<Response>, ips: string[], out: number[]): number {
  let hits = 0;
  for (let b = 0; b + BATCH <= ips.length; b += BATCH) {
    const t = process.hrtime.bigint();
    for (let i = b; i < b + BATCH; i++) if (r.get(ips[i]) !== null) hits++;
    out.push(Number(process.hrtime.bigint() - t) / BATCH);
  }
  return hits;
}

function timeFloor(runs: Runs, ips: string[], out: number[]): number {
  let hits = 0;
  for (let b = 0; b + BATCH <= ips.length; b += BATCH) {
    const t = process.hrtime.bigint();
    for (let i = b; i < b + BATCH; i++) if (floorLookup(runs, ips[i]) >= 0) hits++;
    out.push(Number(process.hrtime.bigint() - t) / BATCH);
  }
  return hits;
}

/** Disjoint ranges covering the IPv4 space, in order: start address and data offset (-1: no data). */
interface Runs {
  starts: Uint32Array;
  offsets: Float64Array;
  count: number;
}

function floorLookup(runs: Runs, ip: string): number {
  const addr = parseIPv4(ip);
  const s = runs.starts;
  let lo = 0;
  let hi = runs.count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (s[mid] <= addr) lo = mid;
    else hi = mid - 1;
  }
  return runs.offsets[lo];
}

/** Walks an IPv4 tree (a bench-only walker, independent of the reader under test) into merged ranges. */
export function resolvedRuns(buf: Buffer, nc: number, recordSize: number, dataStart: number): Runs {
  const readRecord = (node: number, right: number): number => {
    if (recordSize === 24) return buf.readUIntBE(node * 6 + right * 3, 3);
    if (recordSize === 32) return buf.readUInt32BE(node * 8 + right * 4);
    const o = node * 7;
    return right ? (buf[o + 3] & 0x0f) * 2 ** 24 + buf.readUIntBE(o + 4, 3) : (buf[o + 3] >>> 4) * 2 ** 24 + buf.readUIntBE(o, 3);
  };
  let cap = 1 << 20;
  let starts = new Uint32Array(cap);
  let offsets = new Float64Array(cap);
  let count = 0;
  const emit = (start: number, rec: number) => {
    const off = rec > nc ? rec - nc - 16 + dataStart : -1;
    if (count > 0 && offsets[count - 1] === off) return;
    if (count === cap) {
      cap *= 2;
      const s = new Uint32Array(cap);
      s.set(starts);
      starts = s;
      const o = new Float64Array(cap);
      o.set(offsets);
      offsets = o;
    }
    starts[count] = start;
    offsets[count++] = off;
  };
  const walk = (node: number, depth: number, prefix: number) => {
    for (let right = 0; right < 2; right++) {
      const rec = readRecord(node, right);
      const start = prefix + right * 2 ** (31 - depth);
      if (rec >= nc || depth === 31) emit(start, Math.max(rec, nc));
      else walk(rec, depth + 1, start);
    }
  };
  walk(0, 0, 0);
  return { starts, offsets, count };
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * A networks.mmdb of `n` synthetic networks shaped like the generator's (company CIDRs /22–/29 and ranges,
 * big ISP and hosting blocks with company networks nested in them, small bot networks), built with our
 * writer and cached in the temp folder (keyed by size and generator version).
 */
async function syntheticFile(n: number): Promise<string> {
  const dir = join(tmpdir(), 'svc-bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `lookup-v${SYNTHETIC_VERSION}-${n}.mmdb`);
  if (existsSync(file)) {
    console.log(`reusing ${file}`);
    return file;
  }
  const t0 = performance.now();
  const rnd = lcg(n);
  const writer = new MmdbWriter({ ipVersion: 4, databaseType: 'svc-networks', description: { en: 'synthetic benchmark networks' }, languages: ['en'] });
  const confidences = ['Very High', 'High', 'Moderate', 'Low'];
  const countries = Array.from({ length: 40 }, (_, i) => `Country ${i}`);
  const companies = Math.max(1, Math.round(n / 5));
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const aligned = (len: number) => {
    const block = 2 ** (32 - len);
    const a = 0x0100_0000 + Math.floor(rnd() * (0xe000_0000 - 0x0100_0000));
    return a - (a % block);
  };
  for (let i = 0; i < n; i++) {
    const u = rnd();
    let network: string;
    const rec: Record<string, string> = { kind: 'company', confidence: pick(confidences) };
    if (u < 0.06) {
      const len = 12 + Math.floor(rnd() * 9);
      network = `${formatIPv4(aligned(len))}/${len}`;
      rec.kind = 'isp';
    } else if (u < 0.09) {
      const len = 16 + Math.floor(rnd() * 7);
      network = `${formatIPv4(aligned(len))}/${len}`;
      rec.kind = 'hosting';
    } else if (u < 0.11) {
      const len = 24 + Math.floor(rnd() * 5);
      network = `${formatIPv4(aligned(len))}/${len}`;
      rec.kind = 'bot';
    } else if (u < 0.23) {
      const start = aligned(24) + Math.floor(rnd() * 200);
      network = `${formatIPv4(start)}-${formatIPv4(start + 1 + Math.floor(rnd() * 300))}`;
    } else {
      const len = pick([22, 23, 24, 24, 24, 24, 25, 26, 27, 28, 29]);
      network = `${formatIPv4(aligned(len))}/${len}`;
    }
    if (rec.kind === 'company') {
      const c = Math.floor(rnd() * companies);
      rec.company_id = String(1_000_000 + c);
      rec.country = countries[c % 40];
      rec.state = `State ${c % 300}`;
      rec.city = `City ${c % 5000}`;
    } else {
      rec.country = pick(countries);
      if (rnd() < 0.5) rec.city = `City ${Math.floor(rnd() * 5000)}`;
    }
    writer.insert(network, rec);
  }
  await writer.writeFile(file);
  console.log(`built ${file}: ${n.toLocaleString('en-US')} networks in ${fmt.s(performance.now() - t0)}`);
  return file;
}
