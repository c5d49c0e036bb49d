/**
 * `data import`: the operator's licensed IP-intelligence files → our sources folder (companies.csv,
 * networks.csv; the formats of data/sources/schema.ts) that `data build` builds, plus the coverage report.
 *
 *   1. firmographics CSV → companies keyed by domain (./firmographics.ts)
 *   2. network sources (Enterprise, ISP, ASN mmdb, ASN CSV) → one table, resolved by ./precedence.ts
 *   3. Domain db laid over the winners: a network's domain is the Domain db's, else its own (Enterprise)
 *   4. each (network, domain) → kind and company (./user-type.ts, ./resolve.ts)
 *   5. City db laid over the result: geo is the network's own (Enterprise), else the City db's
 *   6. rows written, adjacent equal rows merged; the report counted on the way (./report.ts), into a temp
 *      folder that replaces the output folder only once complete (./output-folder.ts)
 *
 * Input limits and encodings: CSVs through ../sources/csv-records.ts (field and record lengths, UTF-8 or
 * UTF-16 with a BOM); MaxMind DBs through ./mmdb-networks.ts (search tree and pointers checked).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CsvWriter } from '../generate/csv-writer.ts';
import { type Progress, SILENT } from '../progress.ts';
import { COMPANY_COLUMNS, type CompanyRow, type Confidence, NETWORK_COLUMNS, SOURCE_FILES } from '../sources/schema.ts';
import { readAsnCsv } from './asn-csv.ts';
import { ImportError } from './errors.ts';
import { hasFirmographics, readFirmographics } from './firmographics.ts';
import {
  type AsnRecord,
  asnFacts,
  type CityRecord,
  DATABASE_TYPES,
  type DomainRecord,
  type EnterpriseRecord,
  enterpriseFacts,
  type Geo,
  geoOf,
  type IspRecord,
  ispFacts,
  type NetworkFacts,
} from './geoip2.ts';
import { networkText } from './ipv4.ts';
import { readMapping } from './mapping.ts';
import { ipv4Networks, openMmdb } from './mmdb-networks.ts';
import { checkOutputFolder, replaceFolder } from './output-folder.ts';
import { fillGaps, Interner, type NetworkSource, overlay, PrecedenceTable, pairKey, RunList } from './precedence.ts';
import { CoverageCounter, type CoverageReport, IMPORT_REPORT_FILE } from './report.ts';
import { CONFIDENCE_BY_RULE, indexFirmographics, type JoinRule, joinCompany } from './resolve.ts';
import { kindForUserType } from './user-type.ts';

export interface ImportOptions {
  out: string;
  geoip2Enterprise?: string;
  geoip2Isp?: string;
  geoip2Domain?: string;
  asnMmdb?: string;
  asnCsv?: string;
  city?: string;
  firmographics?: string;
  mapping?: string;
  progress?: Progress;
}

/** Confidence of networks whose kind (isp, hosting, bot …) comes straight from the source's user_type. */
const KIND_CONFIDENCE: Confidence = 'High';

interface Resolution {
  /** null: nothing is written for these addresses. */
  kind: string | null;
  companyDomain: string;
  confidence: Confidence;
  /** How the company was found (null for kinds taken from user_type). */
  rule: JoinRule | null;
  facts: NetworkFacts;
  domain: string;
  /** The network's own geo (Enterprise); the City db fills in when null. */
  geo: Geo | null;
}

export async function importSources(opts: ImportOptions): Promise<CoverageReport> {
  const progress = opts.progress ?? SILENT;
  const mapping = readMapping(opts.mapping);
  const given: [NetworkSource, string | undefined][] = [
    ['asn-csv', opts.asnCsv],
    ['asn-mmdb', opts.asnMmdb],
    ['geoip2-isp', opts.geoip2Isp],
    ['geoip2-enterprise', opts.geoip2Enterprise],
  ];
  if (!given.some(([, f]) => f)) throw new ImportError('give at least one network source: --geoip2-enterprise, --geoip2-isp, --asn-mmdb or --asn-csv');
  checkOutputFolder(opts.out);

  // Open every file first, so a wrong path or type fails before any work.
  const readers = {
    enterprise: opts.geoip2Enterprise ? openMmdb<EnterpriseRecord>(opts.geoip2Enterprise, DATABASE_TYPES['geoip2-enterprise'], '--geoip2-enterprise') : null,
    isp: opts.geoip2Isp ? openMmdb<IspRecord>(opts.geoip2Isp, DATABASE_TYPES['geoip2-isp'], '--geoip2-isp') : null,
    asn: opts.asnMmdb ? openMmdb<AsnRecord>(opts.asnMmdb, DATABASE_TYPES['asn-mmdb'], '--asn-mmdb') : null,
    domain: opts.geoip2Domain ? openMmdb<DomainRecord>(opts.geoip2Domain, DATABASE_TYPES['geoip2-domain'], '--geoip2-domain') : null,
    city: opts.city ? openMmdb<CityRecord>(opts.city, DATABASE_TYPES.city, '--city') : null,
  };

  // 1. Firmographics.
  progress.phase('firmographics');
  const firmographics = opts.firmographics ? await readFirmographics(opts.firmographics, mapping, (n) => progress.update(n)) : [];
  progress.end();
  const index = indexFirmographics(firmographics);
  const ids = new Set<string>();
  const companies = new Map<string, CompanyRow>();
  for (const f of firmographics) {
    const company_id = f.company_id || f.domain;
    if (ids.has(company_id)) throw new ImportError(`--firmographics ${opts.firmographics}: company_id ${company_id} appears twice`);
    ids.add(company_id);
    companies.set(f.domain, { ...f, company_id });
  }

  // 2. Network sources, lowest priority first (precedence.ts).
  const table = new PrecedenceTable();
  const facts = new Interner<NetworkFacts>();
  const sources: CoverageReport['sources'] = {};
  const factId = (source: NetworkSource, f: NetworkFacts): number =>
    facts.id(
      `${source}\u0000${f.organization}\u0000${f.userType}\u0000${f.domain}\u0000${f.geo ? `${f.geo.country}\u0000${f.geo.state}\u0000${f.geo.city}` : ''}`,
      () => f,
    );
  for (const [source, file] of given) {
    if (!file) continue;
    progress.phase(source);
    const before = table.size;
    if (source === 'asn-csv') {
      await readAsnCsv(
        file,
        (r) => table.add(r.first, r.last, factId(source, { organization: r.organization, userType: '', domain: '', geo: null })),
        (n) => progress.update(n),
      );
    } else {
      const reader = source === 'geoip2-enterprise' ? readers.enterprise! : source === 'geoip2-isp' ? readers.isp! : readers.asn!;
      const toFacts = (source === 'geoip2-enterprise' ? enterpriseFacts : source === 'geoip2-isp' ? ispFacts : asnFacts) as (r: unknown) => NetworkFacts;
      for (const n of ipv4Networks<unknown>(reader)) {
        table.add(n.first, n.last, factId(source, toFacts(n.record)));
        if ((table.size & 0xffff) === 0) progress.update(table.size - before);
      }
    }
    sources[source] = { file, networks: table.size - before };
    progress.end();
  }
  // 3. Domains, laid over the winners.
  const domains = new Interner<string>();
  const domainRuns = readers.domain ? attributeRuns(readers.domain, (r) => (r.domain ? domains.id(r.domain, () => r.domain!) : -1)) : new RunList();
  if (readers.domain) sources['geoip2-domain'] = { file: opts.geoip2Domain!, networks: domainRuns.length };
  const pairs = new Interner<{ fact: number; domain: string }>();
  const withDomains = (runs: RunList): RunList =>
    overlay(runs, domainRuns, (fact, d) =>
      pairs.id(pairKey(fact, d, domains.values.length), () => ({ fact, domain: d >= 0 ? domains.values[d] : facts.values[fact].domain })),
    );

  // 4. Kind and company per (network, domain), memoised per pair.
  const resolved: Resolution[] = [];
  const resolution = (pair: number): Resolution => (resolved[pair] ??= resolvePair(pairs.values[pair]));
  const resolvePair = ({ fact, domain }: { fact: number; domain: string }): Resolution => {
    const f = facts.values[fact];
    const kind = kindForUserType(f.userType, mapping.user_type);
    const base = { facts: f, domain, geo: f.geo };
    if (kind !== null && kind !== 'company') return { ...base, kind, companyDomain: '', confidence: KIND_CONFIDENCE, rule: null };
    const join = joinCompany(f.organization, domain, index);
    // Without a user_type saying "company", only a firmographics company makes one: an ISP's or a
    // carrier's registered domain must not turn its subscribers into a company.
    if (join.rule === 'unmatched' || (join.rule === 'domain-only' && kind === null))
      return { ...base, kind: null, companyDomain: '', confidence: 'Low', rule: 'unmatched' };
    if (join.rule === 'domain-only') {
      if (!companies.has(join.domain)) companies.set(join.domain, domainOnlyCompany(join.domain, join.name));
      return { ...base, kind: 'company', companyDomain: join.domain, confidence: CONFIDENCE_BY_RULE[join.rule], rule: join.rule };
    }
    return { ...base, kind: 'company', companyDomain: join.company.domain, confidence: CONFIDENCE_BY_RULE[join.rule], rule: join.rule };
  };

  // Precedence, with one refinement: a network that says nothing usable wherever it wins (no kind, no
  // company: an ISP or ASN organization nobody has firmographics for) gives way to the networks beneath
  // it, so a more specific fallback range cannot hide Enterprise's user_type. Repeated until stable
  // (each round can only expose networks of lower layers); the silent ones still fill what is left, so
  // the report lists them as unmatched.
  progress.phase('precedence');
  const silent = new Set<number>();
  let runs: RunList;
  for (;;) {
    runs = withDomains(table.resolve((fact) => !silent.has(fact)));
    const speaks = new Set<number>();
    const won = new Set<number>();
    for (let i = 0; i < runs.length; i++) {
      const pair = runs.value[i];
      won.add(pairs.values[pair].fact);
      if (resolution(pair).kind !== null) speaks.add(pairs.values[pair].fact);
    }
    const before = silent.size;
    for (const fact of won) if (!speaks.has(fact)) silent.add(fact);
    if (silent.size === before) break;
  }
  if (silent.size > 0) runs = fillGaps(runs, withDomains(table.resolve((fact) => silent.has(fact))));
  for (let i = 0; i < runs.length; i++) resolution(runs.value[i]);
  progress.end();

  // 5. City geo laid over the result.
  const geos = new Interner<Geo>();
  const cityRuns = readers.city
    ? attributeRuns(readers.city, (r) => {
        const g = geoOf(r);
        return g ? geos.id(`${g.country}\u0000${g.state}\u0000${g.city}`, () => g) : -1;
      })
    : new RunList();
  if (readers.city) sources.city = { file: opts.city!, networks: cityRuns.length };
  const finals = new Interner<{ resolved: number; geo: Geo | null }>();
  runs = overlay(runs, cityRuns, (r, g) =>
    finals.id(pairKey(r, g, geos.values.length), () => ({ resolved: r, geo: resolved[r].geo ?? (g >= 0 ? geos.values[g] : null) })),
  );

  const counter = new CoverageCounter();
  // 6. Rows: adjacent runs that write the same row (and count the same way) merge into one network.
  const rows = new Interner<{ cells: string[] | null; addressesOf: Resolution; company: CompanyRow | null }>();
  const out = new RunList();
  const rowOfFinal: number[] = [];
  const rowOf = (final: number): number => {
    const { resolved: r, geo } = finals.values[final];
    const res = resolved[r];
    const company = res.kind === 'company' ? companies.get(res.companyDomain)! : null;
    const cells = res.kind === null ? null : [res.kind, company?.company_id ?? '', res.confidence, geo?.country ?? '', geo?.state ?? '', geo?.city ?? ''];
    const key = cells
      ? `w\u0000${res.rule ?? ''}\u0000${cells.join('\u0000')}`
      : `n\u0000${res.rule}\u0000${res.facts.organization}\u0000${res.domain}\u0000${res.facts.userType}`;
    return rows.id(key, () => ({ cells, addressesOf: res, company }));
  };
  for (let i = 0; i < runs.length; i++) out.push(runs.first[i], runs.last[i], (rowOfFinal[runs.value[i]] ??= rowOf(runs.value[i])));

  return replaceFolder(opts.out, async (dir) => {
    const networks = new CsvWriter(join(dir, SOURCE_FILES.networks), NETWORK_COLUMNS);
    progress.phase('write', out.length);
    try {
      for (let i = 0; i < out.length; i++) {
        const { cells, addressesOf: res, company } = rows.values[out.value[i]];
        const addresses = out.last[i] - out.first[i] + 1;
        if (res.rule) counter.join(res.rule, addresses, res.facts.organization, res.domain, res.facts.userType);
        if (cells === null) {
          counter.notWritten(addresses);
          continue;
        }
        networks.write([networkText(out.first[i], out.last[i]), ...cells]);
        counter.network(cells[0], addresses, company ? { id: company.company_id, firmographics: hasFirmographics(company) } : undefined);
        if ((i & 0xffff) === 0) {
          progress.update(i);
          await networks.drain();
        }
      }
    } finally {
      await networks.close();
    }
    progress.end();
    const companyFile = new CsvWriter(join(dir, SOURCE_FILES.companies), COMPANY_COLUMNS);
    let withFirmographics = 0;
    try {
      for (const c of companies.values()) {
        companyFile.write(COMPANY_COLUMNS.map((k) => c[k]));
        if (hasFirmographics(c)) withFirmographics++;
      }
    } finally {
      await companyFile.close();
    }
    const report = counter.finish({ total: companies.size, withFirmographics }, { sources });
    writeFileSync(join(dir, IMPORT_REPORT_FILE), JSON.stringify(report, null, 2) + '\n');
    return report;
  });
}

/** A company known only from a network's registered domain (no firmographics record). */
function domainOnlyCompany(domain: string, name: string): CompanyRow {
  const row = Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])) as CompanyRow;
  return { ...row, company_id: domain, name, domain };
}

/** An attribute database (Domain, City) as runs of value ids; records mapping to -1 are left out. */
function attributeRuns<T>(reader: Parameters<typeof ipv4Networks<T>>[0], idOf: (r: T) => number): RunList {
  const runs = new RunList();
  for (const n of ipv4Networks<T>(reader)) {
    const v = idOf(n.record);
    if (v >= 0) runs.push(n.first, n.last, v);
  }
  return runs;
}
