/**
 * Bring-your-own-data at scale: an ASN-style range CSV of N ranges (default 1,000,000; `start,end,asn,
 * organization`, 50,000 organizations with a long tail) and a firmographics CSV naming four fifths of them
 * (so the name join does real work and most ranges reach the build), then `data import` and `data build` as the CLI runs them, each under
 * /usr/bin/time -v (wall time, peak RSS).
 *
 * Baseline in the same run: reading the input files as raw bytes (the I/O floor of any import).
 *
 *   npm run bench -- import [--ranges N] [--keep]     (--keep: reuse generated inputs from an earlier run)
 */
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CsvWriter } from '../data/generate/csv-writer.ts';
import { Rng } from '../data/generate/random.ts';
import { formatIPv4 } from '../data/import/ipv4.ts';
import { measured, readAll } from './build.ts';
import { fmt, record } from './results.ts';

const ORGANIZATIONS = 50_000;

export async function benchImport(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { ranges: { type: 'string' }, keep: { type: 'boolean' } } });
  const ranges = Number((values.ranges ?? '1000000').replaceAll('_', ''));
  const dir = join(tmpdir(), 'svc-bench', `import-${ranges}`);
  const inputs = join(dir, 'inputs');
  const sources = join(dir, 'sources');
  const out = join(dir, 'out');
  const asnCsv = join(inputs, 'asn-ranges.csv');
  const firmographics = join(inputs, 'firmographics.csv');
  if (!(values.keep && existsSync(firmographics))) {
    rmSync(inputs, { recursive: true, force: true });
    mkdirSync(inputs, { recursive: true });
    await writeInputs(ranges, asnCsv, firmographics);
  }
  const inputBytes = statSync(asnCsv).size + statSync(firmographics).size;
  const floorMs = await readAll(inputs);
  console.log(`inputs: ${fmt.mib(inputBytes)}; raw read ${fmt.s(floorMs)}`);

  rmSync(sources, { recursive: true, force: true });
  const imported = await measured(['data', 'import', '--out', sources, '--asn-csv', asnCsv, '--firmographics', firmographics, '--json']);
  const report = JSON.parse(imported.stdout) as {
    networks: { networks: number };
    by_kind: Record<string, { networks: number }>;
    companies: { total: number };
    joins: Record<string, { networks: number }>;
  };
  console.log(
    `import: ${fmt.s(imported.ms)}, peak RSS ${fmt.mib(imported.peakRss)}; ${report.networks.networks.toLocaleString('en-US')} networks written, ${report.joins.name.networks.toLocaleString('en-US')} joined by name`,
  );

  rmSync(out, { recursive: true, force: true });
  const build = await measured(['data', 'build', '--in', sources, '--out', out, '--json']);
  const summary = JSON.parse(build.stdout) as { networks: number; companies: number; bytes: { networks: number; catalog: number } };
  console.log(`build: ${fmt.s(build.ms)}, peak RSS ${fmt.mib(build.peakRss)}; networks.mmdb ${fmt.mib(summary.bytes.networks)}`);

  record({
    benchmark: `data import + build, ASN range CSV of ${ranges.toLocaleString('en-US')} ranges (${ORGANIZATIONS.toLocaleString('en-US')} organizations) + firmographics of ${report.companies.total.toLocaleString('en-US')} companies`,
    figures:
      `import ${fmt.s(imported.ms)}, peak RSS ${fmt.mib(imported.peakRss)} (${report.networks.networks.toLocaleString('en-US')} networks written, ${report.joins.name.networks.toLocaleString('en-US')} joined by name); ` +
      `build ${fmt.s(build.ms)}, peak RSS ${fmt.mib(build.peakRss)} (${summary.networks.toLocaleString('en-US')} networks, networks.mmdb ${fmt.mib(summary.bytes.networks)}); inputs ${fmt.mib(inputBytes)}, raw read ${fmt.s(floorMs)}`,
    ratio: `import/raw read ${fmt.x(imported.ms / floorMs)}; (import + build)/raw read ${fmt.x((imported.ms + build.ms) / floorMs)}`,
  });
}

/** Deterministic inputs: disjoint ranges spread over 1.0.0.0–223.255.255.255, 64 to 8,192 addresses each. */
async function writeInputs(ranges: number, asnFile: string, firmographicsFile: string): Promise<void> {
  const rng = new Rng('bench-import');
  const asn = new CsvWriter(asnFile, ['start', 'end', 'asn', 'organization']);
  const first = 0x0100_0000;
  const span = 0xe000_0000 - first;
  const step = Math.floor(span / ranges);
  const orgName = (k: number): string => `Organization ${k} Networks`;
  for (let i = 0; i < ranges; i++) {
    const base = first + i * step;
    const start = base + rng.int(0, Math.floor(step / 4));
    const size = rng.int(64, Math.max(64, Math.min(8192, Math.floor(step / 2))));
    // Long tail: a few organizations hold many ranges (square of a uniform draw).
    const u = rng.uint32() / 2 ** 32;
    const org = Math.floor(u * u * ORGANIZATIONS);
    asn.write([formatIPv4(start), formatIPv4(start + size - 1), String(64_512 + org), orgName(org)]);
    if (i % 4096 === 0) await asn.drain();
  }
  await asn.close();
  const firmo = new CsvWriter(firmographicsFile, ['domain', 'name', 'industry', 'employee_count', 'country_iso_code']);
  for (let k = 0; k < ORGANIZATIONS; k++) if (k % 5 !== 4) firmo.write([`org-${k}.example`, `${orgName(k)}, Inc.`, 'Software', String(10 + (k % 5000)), 'US']);
  await firmo.close();
}
