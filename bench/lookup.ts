/**
 * Lookup: IP string → network record, on network indexes of 10 thousand, 1 million and 5 million networks.
 *
 *   ours      server/data/mmdb/reader.ts (what the server uses)
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
 *   npm run bench -- lookup --ipv6 1000000           # N IPv4 + N IPv6 networks in one IPv6 tree (below)
 *
 * `--ipv6 N`: IPv4 and IPv6 lookups on one IPv6 tree of N IPv4 networks (as above) and N IPv6 networks
 * shaped like the generator's (allocated /32s; ISP /29–/32, hosting /40–/44, bots /64, companies /44–/56
 * inside them), ours against `maxmind` on the same file; and, for `data build`'s choice of tree for
 * IPv4-only sources, IPv4 lookups on the same N IPv4 networks written as an IPv4 tree and as an IPv6 tree.
 * Addresses: "random" (IPv4: uniform; IPv6: half uniform over 2400::/6, half inside allocated /32s) and
 * "edges" (first or last address of an inserted network; nested ones make some answer for the outer one).
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import maxmind, { Reader, type Response } from 'maxmind';
import { MmdbWriter } from '../data/mmdb/writer.ts';
import { formatIPv4, formatIPv6, parseIPv4 } from '../server/data/mmdb/address.ts';
import { MmdbReader } from '../server/data/mmdb/reader.ts';
import { fmt, median, record } from './results.ts';

const DEFAULT_SIZES = [10_000, 1_000_000, 5_000_000];
const SAMPLE = 50_000;
const BATCH = 1_000;
const ROUNDS = 4;
/** Bump when the synthetic generator changes: cached files are keyed by it. */
const SYNTHETIC_VERSION = 1;
/** The same for the synthetic IPv6 networks of `--ipv6`. */
const SYNTHETIC_V6_VERSION = 2;

export async function benchLookup(args: string[]): Promise<void> {
  const v6At = args.indexOf('--ipv6');
  if (v6At >= 0) {
    await benchDual(Number(args[v6At + 1].replaceAll('_', '')));
    return;
  }
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
  const writer = new MmdbWriter({ ipVersion: 4, databaseType: 'svc-networks', description: { en: 'synthetic benchmark networks' }, languages: ['en'] });
  insertSyntheticV4(writer, n, []);
  await writer.writeFile(file);
  console.log(`built ${file}: ${n.toLocaleString('en-US')} networks in ${fmt.s(performance.now() - t0)}`);
  return file;
}

const CONFIDENCES = ['Very High', 'High', 'Moderate', 'Low'];
const COUNTRIES = Array.from({ length: 40 }, (_, i) => `Country ${i}`);

/** Inserts `n` synthetic IPv4 networks (see syntheticFile); every 50th network's first and last address go to `edges`. */
function insertSyntheticV4(writer: MmdbWriter, n: number, edges: string[]): void {
  const rnd = lcg(n);
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
    let first: number;
    let last: number;
    const rec: Record<string, string> = { kind: 'company', confidence: pick(CONFIDENCES) };
    const cidr = (len: number) => {
      first = aligned(len);
      last = first + 2 ** (32 - len) - 1;
      return `${formatIPv4(first)}/${len}`;
    };
    if (u < 0.06) {
      network = cidr(12 + Math.floor(rnd() * 9));
      rec.kind = 'isp';
    } else if (u < 0.09) {
      network = cidr(16 + Math.floor(rnd() * 7));
      rec.kind = 'hosting';
    } else if (u < 0.11) {
      network = cidr(24 + Math.floor(rnd() * 5));
      rec.kind = 'bot';
    } else if (u < 0.23) {
      first = aligned(24) + Math.floor(rnd() * 200);
      last = first + 1 + Math.floor(rnd() * 300);
      network = `${formatIPv4(first)}-${formatIPv4(last)}`;
    } else {
      network = cidr(pick([22, 23, 24, 24, 24, 24, 25, 26, 27, 28, 29]));
    }
    if (rec.kind === 'company') {
      const c = Math.floor(rnd() * companies);
      rec.company_id = String(1_000_000 + c);
      rec.country = COUNTRIES[c % 40];
      rec.state = `State ${c % 300}`;
      rec.city = `City ${c % 5000}`;
    } else {
      rec.country = pick(COUNTRIES);
      if (rnd() < 0.5) rec.city = `City ${Math.floor(rnd() * 5000)}`;
    }
    writer.insert(network, rec);
    if (i % 50 === 0) edges.push(formatIPv4(first!), formatIPv4(last!));
  }
}

/** Top 64 bits → RFC 5952 text of the address (low 64 bits `low`). */
const v6 = (top: bigint, low = 0n): string => formatIPv6([Number(top >> 32n), Number(top & 0xffff_ffffn), Number(low >> 32n), Number(low & 0xffff_ffffn)]);

/**
 * Inserts `n` synthetic IPv6 networks shaped like the generator's (data/generate/ipv6-space.ts): address
 * space is handed out in /32s (n / 20 of them, spread over 2400::/6, away from 2002::/16) as the registries
 * do, ISPs and big hosting providers hold whole /32s, everything else (hosting /40–/44, bots /64,
 * companies /44–/56) sits inside one; every 50th network's first and last address go to `edges`.
 */
function insertSyntheticV6(writer: MmdbWriter, n: number, edges: string[]): void {
  const rnd = lcg(n + 6);
  const companies = Math.max(1, Math.round(n / 2));
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const blocks = Array.from({ length: Math.max(1, Math.round(n / 20)) }, () => BigInt(0x2400_0000 + Math.floor(rnd() * 0x0c00_0000)) << 32n);
  for (let i = 0; i < n; i++) {
    const u = rnd();
    const rec: Record<string, string> = { kind: 'company', confidence: pick(CONFIDENCES) };
    let len: number;
    if (u < 0.06) {
      len = pick([29, 32, 32, 32]);
      rec.kind = 'isp';
    } else if (u < 0.09) {
      len = pick([32, 40, 44, 44]);
      rec.kind = 'hosting';
    } else if (u < 0.11) {
      len = 64;
      rec.kind = 'bot';
    } else {
      len = pick([44, 48, 48, 48, 56, 56]);
    }
    const size = 1n << BigInt(64 - len);
    let start = pick(blocks) | BigInt(Math.floor(rnd() * 2 ** 32));
    start -= start % size;
    if (rec.kind === 'company') {
      const c = Math.floor(rnd() * companies);
      rec.company_id = String(1_000_000 + c);
      rec.country = COUNTRIES[c % 40];
      rec.city = `City ${c % 5000}`;
    } else {
      rec.country = pick(COUNTRIES);
    }
    writer.insert(`${v6(start)}/${len}`, rec);
    if (i % 50 === 0) edges.push(v6(start), v6(start + size - 1n, 0xffff_ffff_ffff_ffffn));
  }
}

async function cachedBuild(name: string, build: (w: MmdbWriter) => void, ipVersion: 4 | 6): Promise<string> {
  const dir = join(tmpdir(), 'svc-bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.mmdb`);
  if (existsSync(file)) return file;
  const t0 = performance.now();
  const writer = new MmdbWriter({ ipVersion, databaseType: 'svc-networks', description: { en: 'synthetic benchmark networks' }, languages: ['en'] });
  build(writer);
  await writer.writeFile(file);
  console.log(`built ${file}: ${writer.networkCount.toLocaleString('en-US')} networks in ${fmt.s(performance.now() - t0)}`);
  return file;
}

/** `--ipv6 N`: see the header. */
async function benchDual(n: number): Promise<void> {
  const v4Edges: string[] = [];
  const v6Edges: string[] = [];
  const key = `lookup-v${SYNTHETIC_VERSION}-dual${SYNTHETIC_V6_VERSION}-${n}`;
  const dual = await cachedBuild(
    key,
    (w) => {
      insertSyntheticV4(w, n, []);
      insertSyntheticV6(w, n, []);
    },
    6,
  );
  const v4In4 = await cachedBuild(`lookup-v${SYNTHETIC_VERSION}-v4in4-${n}`, (w) => insertSyntheticV4(w, n, []), 4);
  const v4In6 = await cachedBuild(`lookup-v${SYNTHETIC_VERSION}-v4in6-${n}`, (w) => insertSyntheticV4(w, n, []), 6);
  // The probes: the same insert order again, into a writer that is never built.
  const probe = new MmdbWriter({ ipVersion: 6, databaseType: 'probe', description: {}, languages: [] });
  insertSyntheticV4(probe, n, v4Edges);
  insertSyntheticV6(probe, n, v6Edges);

  const rnd = lcg(777);
  const sample = (xs: string[]) => Array.from({ length: SAMPLE }, () => xs[Math.floor(rnd() * xs.length)]);
  const sets: Record<string, string[]> = {
    'v4 random': Array.from({ length: SAMPLE }, () => formatIPv4(Math.floor(rnd() * 2 ** 32))),
    'v4 edges': sample(v4Edges),
    // Half anywhere in 2400::/6 (almost all outside any network), half near an edge's /32 (allocated space).
    'v6 random': Array.from({ length: SAMPLE }, (_, i) => {
      const low = BigInt(Math.floor(rnd() * 2 ** 32));
      if (i % 2 === 0) return v6((BigInt(0x2400_0000 + Math.floor(rnd() * 0x0c00_0000)) << 32n) | BigInt(Math.floor(rnd() * 2 ** 32)), low);
      const near = v6Edges[Math.floor(rnd() * v6Edges.length)].split(':');
      return v6(
        (BigInt(Number.parseInt(near[0], 16)) << 48n) | (BigInt(Number.parseInt(near[1] || '0', 16)) << 32n) | BigInt(Math.floor(rnd() * 2 ** 32)),
        low,
      );
    }),
    'v6 edges': sample(v6Edges),
  };

  const measure = async (file: string, names: string[]) => {
    const buf = readFileSync(file);
    const ours = new MmdbReader(buf);
    const theirs = await maxmind.open(file);
    for (const name of names)
      for (const ip of sets[name].slice(0, 2000)) {
        if (JSON.stringify(ours.get(ip)) !== JSON.stringify(theirs.get(ip))) throw new Error(`readers disagree on ${ip} in ${file}`);
      }
    const out = new Map<string, { ours: number[]; maxmind: number[] }>(names.map((k) => [k, { ours: [], maxmind: [] }]));
    let sink = 0;
    for (const name of names) sink += timeOurs(ours, sets[name], []) + timeMaxmind(theirs, sets[name], []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) {
        sink += timeOurs(ours, sets[name], out.get(name)!.ours);
        sink += timeMaxmind(theirs, sets[name], out.get(name)!.maxmind);
      }
    }
    const m = ours.metadata;
    console.log(`${file}: ${fmt.mib(buf.length)}, ip_version ${m.ipVersion}, ${m.nodeCount.toLocaleString('en-US')} nodes, ${m.recordSize}-bit (sink ${sink})`);
    for (const name of names) {
      const o = out.get(name)!;
      console.log(`   ${name.padEnd(10)} ours ${fmt.ns(median(o.ours)).padStart(8)}   maxmind ${fmt.ns(median(o.maxmind)).padStart(8)}`);
    }
    return { size: buf.length, med: (name: string, who: 'ours' | 'maxmind') => median(out.get(name)![who]) };
  };

  const d = await measure(dual, Object.keys(sets));
  const names = Object.keys(sets);
  record({
    benchmark: `lookup, ${n.toLocaleString('en-US')} IPv4 + ${n.toLocaleString('en-US')} IPv6 synthetic networks, one IPv6 tree (${fmt.mib(d.size)})`,
    figures: names.map((k) => `${k}: ours ${fmt.ns(d.med(k, 'ours'))}, maxmind ${fmt.ns(d.med(k, 'maxmind'))}`).join('; '),
    ratio: names.map((k) => `${k} maxmind/ours ${fmt.x(d.med(k, 'maxmind') / d.med(k, 'ours'))}`).join('; '),
  });
  const a = await measure(v4In4, ['v4 random', 'v4 edges']);
  const b = await measure(v4In6, ['v4 random', 'v4 edges']);
  record({
    benchmark: `lookup, ${n.toLocaleString('en-US')} IPv4 synthetic networks as an IPv4 tree (${fmt.mib(a.size)}) and as an IPv6 tree (${fmt.mib(b.size)})`,
    figures: ['v4 random', 'v4 edges']
      .map((k) => `${k}: ours ${fmt.ns(a.med(k, 'ours'))} in the IPv4 tree, ${fmt.ns(b.med(k, 'ours'))} in the IPv6 tree`)
      .join('; '),
    ratio: ['v4 random', 'v4 edges'].map((k) => `${k} IPv6 tree/IPv4 tree ${fmt.x(b.med(k, 'ours') / a.med(k, 'ours'))}`).join('; '),
  });
}
