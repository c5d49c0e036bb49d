/**
 * The coverage report: what an operator loaded and how good it is. `data import` prints it (`--json`: the
 * object) and stores it as `import-report.json` beside the sources; `data build --report` recomputes the
 * network and company figures from the sources folder it builds and adds the import's joins and
 * unmatched organizations when that file is there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { NetworkTable, resolveOverlaps } from '../mmdb/overlap.ts';
import { readCsvBatches, sourcePath } from '../sources/read.ts';
import { CompanyRow, NetworkRow } from '../sources/schema.ts';
import { hasFirmographics } from './firmographics.ts';
import { parseIPv4 } from './ipv4.ts';
import { Interner } from './precedence.ts';
import { JOIN_RULES, type JoinRule } from './resolve.ts';

export const IMPORT_REPORT_FILE = 'import-report.json';
export const TOP_UNMATCHED = 20;

const Tally = z.object({ networks: z.number(), addresses: z.number() });
export type Tally = z.infer<typeof Tally>;

export const UnmatchedOrganization = z.object({
  organization: z.string(),
  domain: z.string(),
  user_type: z.string(),
  networks: z.number(),
  addresses: z.number(),
});
export type UnmatchedOrganization = z.infer<typeof UnmatchedOrganization>;

export const CoverageReport = z.object({
  /** Written networks (address runs after precedence) and their addresses, per kind. */
  networks: Tally,
  by_kind: z.record(z.string(), Tally),
  /** Addresses the sources cover but no row was written for (no kind and no company could be found). */
  unresolved: Tally,
  /** How company (and kind-less) networks joined a company; `unmatched` were not written. */
  joins: z.record(z.string(), Tally),
  companies: z.object({ total: z.number(), with_firmographics: z.number(), with_networks: z.number() }),
  /** Addresses of company networks whose company has a firmographics record. */
  company_addresses: z.object({ total: z.number(), with_firmographics: z.number(), share: z.number() }),
  /** Top organizations by address count that joined no firmographics company (`unmatched` and `domain-only`). */
  unmatched_organizations: z.array(UnmatchedOrganization),
  sources: z.record(z.string(), z.object({ file: z.string(), networks: z.number() })).default({}),
});
export type CoverageReport = z.infer<typeof CoverageReport>;

const tally = (): Tally => ({ networks: 0, addresses: 0 });

export class CoverageCounter {
  private readonly byKind = new Map<string, Tally>();
  private readonly unresolved = tally();
  private readonly joins = new Map<JoinRule, Tally>(JOIN_RULES.map((r) => [r, tally()]));
  private readonly unmatched = new Map<string, UnmatchedOrganization>();
  private companyAddresses = 0;
  private firmographicAddresses = 0;
  private readonly companiesWithNetworks = new Set<string>();

  network(kind: string, addresses: number, company?: { id: string; firmographics: boolean }): void {
    const t = this.byKind.get(kind) ?? tally();
    t.networks++;
    t.addresses += addresses;
    this.byKind.set(kind, t);
    if (company) {
      this.companyAddresses += addresses;
      if (company.firmographics) this.firmographicAddresses += addresses;
      this.companiesWithNetworks.add(company.id);
    }
  }

  notWritten(addresses: number): void {
    this.unresolved.networks++;
    this.unresolved.addresses += addresses;
  }

  join(rule: JoinRule, addresses: number, organization: string, domain: string, userType: string): void {
    const t = this.joins.get(rule)!;
    t.networks++;
    t.addresses += addresses;
    if (rule === 'unmatched' || rule === 'domain-only') {
      const key = `${organization}\u0000${domain}`;
      const u = this.unmatched.get(key) ?? { organization, domain, user_type: userType, networks: 0, addresses: 0 };
      u.networks++;
      u.addresses += addresses;
      this.unmatched.set(key, u);
    }
  }

  finish(
    companies: { total: number; withFirmographics: number },
    extra: Partial<Pick<CoverageReport, 'joins' | 'unmatched_organizations' | 'sources'>> = {},
  ): CoverageReport {
    const byKind = Object.fromEntries([...this.byKind].sort(([a], [b]) => a.localeCompare(b)));
    const networks = [...this.byKind.values()].reduce((s, t) => ({ networks: s.networks + t.networks, addresses: s.addresses + t.addresses }), tally());
    return {
      networks,
      by_kind: byKind,
      unresolved: this.unresolved,
      joins: extra.joins ?? Object.fromEntries(this.joins),
      companies: { total: companies.total, with_firmographics: companies.withFirmographics, with_networks: this.companiesWithNetworks.size },
      company_addresses: {
        total: this.companyAddresses,
        with_firmographics: this.firmographicAddresses,
        share: this.companyAddresses === 0 ? 0 : Math.round((this.firmographicAddresses / this.companyAddresses) * 10_000) / 10_000,
      },
      unmatched_organizations:
        extra.unmatched_organizations ??
        [...this.unmatched.values()].sort((a, b) => b.addresses - a.addresses || a.organization.localeCompare(b.organization)).slice(0, TOP_UNMATCHED),
      sources: extra.sources ?? {},
    };
  }
}

/** The report for any sources folder (what `data build --report` prints), from its networks.csv and companies.csv. */
export async function coverageOfSources(dir: string): Promise<CoverageReport> {
  const firmographic = new Set<string>();
  let total = 0;
  for await (const rows of readCsvBatches(sourcePath(dir, 'companies'), CompanyRow)) {
    for (const c of rows) {
      total++;
      if (hasFirmographics(c)) firmographic.add(c.company_id);
    }
  }
  const table = new NetworkTable(1, 4096);
  const values = new Interner<{ kind: string; company_id: string }>();
  for await (const rows of readCsvBatches(sourcePath(dir, 'networks'), NetworkRow)) {
    for (const r of rows) {
      const [first, last] = bounds(r.network);
      table.addV4(
        first,
        last,
        values.id(`${r.kind}\u0000${r.company_id}`, () => ({ kind: r.kind, company_id: r.company_id })),
      );
    }
  }
  const counter = new CoverageCounter();
  resolveOverlaps(table, (b, s, e, v) => {
    const { kind, company_id } = values.values[v];
    counter.network(kind, b[e] - b[s], kind === 'company' ? { id: company_id, firmographics: firmographic.has(company_id) } : undefined);
  });
  const file = join(dir, IMPORT_REPORT_FILE);
  const imported = existsSync(file) ? CoverageReport.safeParse(parseJson(readFileSync(file, 'utf8'))) : null;
  return counter.finish(
    { total, withFirmographics: firmographic.size },
    imported?.success
      ? { joins: imported.data.joins, unmatched_organizations: imported.data.unmatched_organizations, sources: imported.data.sources }
      : { joins: {} },
  );
}

/** A damaged import-report.json only loses the import's part of the report. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function bounds(network: string): [number, number] {
  const dash = network.indexOf('-');
  if (dash >= 0) return [parseIPv4(network.slice(0, dash))!, parseIPv4(network.slice(dash + 1))!];
  const [base, prefix] = network.split('/');
  const size = 2 ** (32 - Number(prefix ?? 32));
  const first = parseIPv4(base)!;
  return [first - (first % size), first - (first % size) + size - 1];
}

/** Human-readable report. */
export function formatReport(r: CoverageReport): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  const lines = [`networks: ${n(r.networks.networks)} (${n(r.networks.addresses)} addresses)`];
  for (const [kind, t] of Object.entries(r.by_kind))
    lines.push(`  ${kind.padEnd(12)} ${n(t.networks).padStart(12)} networks ${n(t.addresses).padStart(15)} addresses`);
  if (r.unresolved.networks)
    lines.push(
      `  ${'not written'.padEnd(12)} ${n(r.unresolved.networks).padStart(12)} networks ${n(r.unresolved.addresses).padStart(15)} addresses (no kind, no company)`,
    );
  const joins = Object.entries(r.joins).filter(([, t]) => t.networks > 0);
  if (joins.length) {
    lines.push('company joins:');
    for (const [rule, t] of joins) lines.push(`  ${rule.padEnd(12)} ${n(t.networks).padStart(12)} networks ${n(t.addresses).padStart(15)} addresses`);
  }
  lines.push(`companies: ${n(r.companies.total)} (${n(r.companies.with_firmographics)} with firmographics, ${n(r.companies.with_networks)} with networks)`);
  lines.push(
    `company addresses with firmographics: ${n(r.company_addresses.with_firmographics)} of ${n(r.company_addresses.total)} (${(r.company_addresses.share * 100).toFixed(1)}%)`,
  );
  if (r.unmatched_organizations.length) {
    lines.push(`unmatched organizations (top ${r.unmatched_organizations.length} by addresses):`);
    for (const u of r.unmatched_organizations) {
      lines.push(
        `  ${n(u.addresses).padStart(15)}  ${u.organization || '(no organization)'}${u.domain ? ` <${u.domain}>` : ''}${u.user_type ? ` [${u.user_type}]` : ''}`,
      );
    }
  }
  return lines.join('\n');
}
