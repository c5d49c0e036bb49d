/**
 * The coverage report: what an operator loaded and how good it is. `data import` prints it (`--json`: the
 * object) and stores it as `import-report.json` beside the sources; `data build --report` recomputes the
 * network and company figures from the sources folder it builds and adds the import's joins and
 * unmatched organizations when that file is there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CompanyRow } from '../../core/catalog-records.ts';
import { parseNetwork } from '../mmdb/network.ts';
import { NetworkTable, resolveOverlaps } from '../mmdb/overlap.ts';
import { readCsvBatches, sourcePath } from '../sources/read.ts';
import { NetworkRow } from '../sources/schema.ts';
import { hasFirmographics } from './firmographics.ts';
import { blocks64 } from './ipv6.ts';
import { Interner } from './precedence.ts';
import { JOIN_RULES, type JoinRule } from './resolve.ts';

export const IMPORT_REPORT_FILE = 'import-report.json';
export const TOP_UNMATCHED = 20;

const Tally = z.object({ networks: z.number(), addresses: z.number() });
export type Tally = z.infer<typeof Tally>;

const Tally6 = z.object({ networks: z.number(), blocks_64: z.number() });

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
  /** Networks read per input (both families), `ipv6_networks` of them IPv6. */
  sources: z.record(z.string(), z.object({ file: z.string(), networks: z.number(), ipv6_networks: z.number().optional() })).default({}),
  /** Written IPv4 networks per privacy reason (absent when there are none). */
  by_privacy: z.record(z.string(), Tally).optional(),
  /**
   * The IPv6 networks of the sources (absent when there are none). Every figure above is IPv4; an IPv6
   * network's size counts in /64 blocks (the unit a site or home gets), not in addresses. The import adds
   * what only it knows (unresolved, joins, unmatched organizations), as for IPv4.
   */
  ipv6: z
    .object({
      networks: Tally6,
      by_kind: z.record(z.string(), Tally6),
      by_privacy: z.record(z.string(), Tally6).optional(),
      companies_with_networks: z.number(),
      unresolved: Tally6.optional(),
      joins: z.record(z.string(), Tally6).optional(),
      unmatched_organizations: z
        .array(z.object({ organization: z.string(), domain: z.string(), user_type: z.string(), networks: z.number(), blocks_64: z.number() }))
        .optional(),
    })
    .optional(),
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
  private readonly byPrivacy = new Map<string, Tally>();

  network(kind: string, addresses: number, company?: { id: string; firmographics: boolean }, privacy?: string | null): void {
    const t = this.byKind.get(kind) ?? tally();
    t.networks++;
    t.addresses += addresses;
    this.byKind.set(kind, t);
    if (privacy) {
      const p = this.byPrivacy.get(privacy) ?? tally();
      p.networks++;
      p.addresses += addresses;
      this.byPrivacy.set(privacy, p);
    }
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
    const report: CoverageReport = {
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
    if (this.byPrivacy.size > 0) report.by_privacy = Object.fromEntries([...this.byPrivacy].sort(([a], [b]) => a.localeCompare(b)));
    return report;
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
  const table6 = new NetworkTable(5, 64);
  const values = new Interner<{ kind: string; company_id: string; privacy: string }>();
  for await (const rows of readCsvBatches(sourcePath(dir, 'networks'), NetworkRow)) {
    for (const r of rows) {
      // Geo too: a row is a network, as the import counts them (adjacent rows that differ only in geo are two).
      const value = values.id(`${r.kind}\u0000${r.company_id}\u0000${r.privacy}\u0000${r.country}\u0000${r.state}\u0000${r.city}`, () => ({
        kind: r.kind,
        company_id: r.company_id,
        privacy: r.privacy,
      }));
      const net = parseNetwork(r.network);
      if (net.family === 4) table.addV4(net.start, net.end, value);
      else if (net.start >= MAPPED_START && net.end <= MAPPED_START + 0xffff_ffffn)
        table.addV4(Number(net.start - MAPPED_START), Number(net.end - MAPPED_START), value);
      else table6.addV6(net.start, net.end, value);
    }
  }
  const counter = new CoverageCounter();
  resolveOverlaps(table, (b, s, e, v) => {
    const { kind, company_id, privacy } = values.values[v];
    counter.network(kind, b[e] - b[s], kind === 'company' ? { id: company_id, firmographics: firmographic.has(company_id) } : undefined, privacy);
  });
  const counter6 = new CoverageCounter();
  resolveOverlaps(table6, (b, s, e, v) => {
    const { kind, company_id, privacy } = values.values[v];
    counter6.network(
      kind,
      blocks64(limbsValue(b, e) - limbsValue(b, s)),
      kind === 'company' ? { id: company_id, firmographics: firmographic.has(company_id) } : undefined,
      privacy,
    );
  });
  const file = join(dir, IMPORT_REPORT_FILE);
  const imported = existsSync(file) ? CoverageReport.safeParse(parseJson(readFileSync(file, 'utf8'))) : null;
  const report = counter.finish(
    { total, withFirmographics: firmographic.size },
    imported?.success
      ? { joins: imported.data.joins, unmatched_organizations: imported.data.unmatched_organizations, sources: imported.data.sources }
      : { joins: {} },
  );
  if (table6.count > 0) {
    report.ipv6 = ipv6Section(counter6.finish({ total: 0, withFirmographics: 0 }), false);
    const known = imported?.success ? imported.data.ipv6 : undefined;
    if (known?.joins) report.ipv6.joins = known.joins;
    if (known?.unmatched_organizations) report.ipv6.unmatched_organizations = known.unmatched_organizations;
  }
  return report;
}

const MAPPED_START = 0xffffn << 32n; // ::ffff:0:0, IPv4-mapped: counted as IPv4 (the index aliases it)

/** An address given as five limbs (../mmdb/overlap.ts). */
function limbsValue(b: Float64Array, off: number): bigint {
  let x = 0n;
  for (let k = 0; k < 5; k++) x = (x << 32n) | BigInt(b[off + k]);
  return x;
}

/**
 * The IPv6 figures of a counter whose "addresses" are /64 blocks; `imported`: the import's own counter,
 * which also knows the unresolved networks, the joins and the unmatched organizations.
 */
export function ipv6Section(r: CoverageReport, imported: boolean): NonNullable<CoverageReport['ipv6']> {
  const t = (x: Tally) => ({ networks: x.networks, blocks_64: x.addresses });
  const each = (o: Record<string, Tally>) => Object.fromEntries(Object.entries(o).map(([k, x]) => [k, t(x)]));
  const section: NonNullable<CoverageReport['ipv6']> = {
    networks: t(r.networks),
    by_kind: each(r.by_kind),
    companies_with_networks: r.companies.with_networks,
  };
  if (r.by_privacy) section.by_privacy = each(r.by_privacy);
  if (imported) {
    section.unresolved = t(r.unresolved);
    section.joins = each(r.joins);
    section.unmatched_organizations = r.unmatched_organizations.map(({ addresses, ...u }) => ({ ...u, blocks_64: addresses }));
  }
  return section;
}

/** A damaged import-report.json only loses the import's part of the report. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
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
  if (r.ipv6) {
    lines.push(
      `IPv6 networks: ${n(r.ipv6.networks.networks)} (${n(r.ipv6.networks.blocks_64)} /64 blocks), ${n(r.ipv6.companies_with_networks)} companies with IPv6 networks`,
    );
    for (const [kind, t] of Object.entries(r.ipv6.by_kind))
      lines.push(`  ${kind.padEnd(12)} ${n(t.networks).padStart(12)} networks ${n(t.blocks_64).padStart(15)} /64 blocks`);
    if (r.ipv6.unresolved?.networks)
      lines.push(
        `  ${'not written'.padEnd(12)} ${n(r.ipv6.unresolved.networks).padStart(12)} networks ${n(r.ipv6.unresolved.blocks_64).padStart(15)} /64 blocks (no kind, no company)`,
      );
    for (const [reason, t] of Object.entries(r.ipv6.by_privacy ?? {}))
      lines.push(`  privacy ${reason.padEnd(4)} ${n(t.networks).padStart(12)} networks ${n(t.blocks_64).padStart(15)} /64 blocks`);
  }
  if (r.by_privacy) {
    lines.push('privacy networks (IPv4):');
    for (const [reason, t] of Object.entries(r.by_privacy))
      lines.push(`  ${reason.padEnd(12)} ${n(t.networks).padStart(12)} networks ${n(t.addresses).padStart(15)} addresses`);
  }
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
