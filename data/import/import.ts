/**
 * `data import`: the operator's licensed IP-intelligence files → our sources folder (companies.csv,
 * networks.csv; the formats of data/sources/schema.ts) that `data build` builds, plus the coverage report.
 *
 *   1. firmographics CSV → companies keyed by domain (./firmographics.ts)
 *   2. network sources (Enterprise, ISP, ASN mmdb, ASN CSV) → one table, resolved by ./precedence.ts
 *   3. Domain db laid over the winners: a network's domain is the Domain db's, else its own (Enterprise)
 *   4. each (network, domain) → kind and company (./user-type.ts, ./resolve.ts)
 *   5. Anonymous IP db laid over the result (`--anonymous-ip`): a flagged network keeps its kind and
 *      company and gains its privacy reason (./geoip2.ts `privacyOf`); one no other source knows is written
 *      as kind `anonymizer` (`hosting` for a hosting provider)
 *   6. City db laid over the result: geo is the network's own (Enterprise), else the City db's
 *   7. rows written, adjacent equal rows merged; the report counted on the way (./report.ts), into a temp
 *      folder that replaces the output folder only once complete (./output-folder.ts)
 *
 * Both families: every step runs once over the IPv4 networks and once over the IPv6 ones (on ranks of
 * their boundaries, ./precedence.ts), with the same rules; IPv4 rows are written first. What is IPv4 in
 * IPv6 (::/96, ::ffff:0:0/96, 2002::/16) is read as IPv4 only (./ipv6.ts).
 *
 * Input limits and encodings: CSVs through ../sources/csv-records.ts (field and record lengths, UTF-8 or
 * UTF-16 with a BOM); MaxMind DBs through ./mmdb-networks.ts (search tree and pointers checked).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PrivacyReason } from '../../core/vocabulary.ts';
import { CsvWriter } from '../generate/csv-writer.ts';
import { type Progress, SILENT } from '../progress.ts';
import { COMPANY_COLUMNS, type CompanyRow, type Confidence, NETWORK_COLUMNS, SOURCE_FILES } from '../sources/schema.ts';
import { readAsnCsv } from './asn-csv.ts';
import { ImportError } from './errors.ts';
import { hasFirmographics, readFirmographics } from './firmographics.ts';
import {
  type AnonymousIpRecord,
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
  privacyOf,
} from './geoip2.ts';
import { networkText } from './ipv4.ts';
import { blocks64, networkText6, outsideIpv4 } from './ipv6.ts';
import { readMapping } from './mapping.ts';
import { ipv4Networks, ipv6Networks, type MmdbFile, openMmdb } from './mmdb-networks.ts';
import { checkOutputFolder, replaceFolder } from './output-folder.ts';
import { fillGaps, Interner, Ipv6Ranks, type NetworkSource, overlay, PrecedenceTable, pairKey, RunList } from './precedence.ts';
import { CoverageCounter, type CoverageReport, IMPORT_REPORT_FILE, ipv6Section } from './report.ts';
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
  anonymousIp?: string;
  firmographics?: string;
  mapping?: string;
  progress?: Progress;
}

/** Confidence of networks whose kind (isp, hosting, bot …) comes straight from the source's user_type. */
const KIND_CONFIDENCE: Confidence = 'High';

/** The kind of a privacy network no network source knows. */
const privacyKind = (p: PrivacyReason): string => (p === 'hosting' ? 'hosting' : 'anonymizer');

interface Resolution {
  /** null: nothing is written for these addresses. */
  kind: string | null;
  companyDomain: string;
  confidence: Confidence;
  /** How the company was found (null for kinds taken from user_type or privacy). */
  rule: JoinRule | null;
  facts: NetworkFacts;
  domain: string;
  /** The network's own geo (Enterprise); the City db fills in when null. */
  geo: Geo | null;
  privacy: PrivacyReason | null;
}

const NO_FACTS: NetworkFacts = { organization: '', userType: '', domain: '', geo: null };

/** IPv6 networks of one input, kept until every input is read (their ranks need all boundaries). */
class Networks6 {
  readonly first: bigint[] = [];
  readonly last: bigint[] = [];
  readonly value: number[] = [];
  constructor(private readonly ranks: Ipv6Ranks) {}
  push(first: bigint, last: bigint, value: number): void {
    for (const [a, b] of outsideIpv4(first, last)) {
      this.ranks.note(a, b);
      this.first.push(a);
      this.last.push(b);
      this.value.push(value);
    }
  }
  get length(): number {
    return this.value.length;
  }
  /** As runs of ranks (an attribute database: networks disjoint, in address order). */
  runs(): RunList {
    const runs = new RunList();
    for (let i = 0; i < this.value.length; i++) runs.push(this.ranks.first(this.first[i]), this.ranks.last(this.last[i]), this.value[i]);
    return runs;
  }
  /** Into a precedence table, in the order read, with their real sizes for the overlap rule. */
  addTo(table: PrecedenceTable): void {
    for (let i = 0; i < this.value.length; i++)
      table.add(this.ranks.first(this.first[i]), this.ranks.last(this.last[i]), this.value[i], Number(this.last[i] - this.first[i] + 1n));
  }
}

/** An attribute database (Domain, City, Anonymous IP) read in both families; values mapping to -1 are left out. */
interface Attribute {
  v4: RunList;
  v6: Networks6;
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
    anonymous: opts.anonymousIp ? openMmdb<AnonymousIpRecord>(opts.anonymousIp, DATABASE_TYPES['anonymous-ip'], '--anonymous-ip') : null,
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

  // 2. Network sources, lowest priority first (precedence.ts); IPv6 kept aside until every input is read.
  const ranks = new Ipv6Ranks();
  const table = new PrecedenceTable();
  const networks6: Networks6[] = [];
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
    const v6 = new Networks6(ranks);
    networks6.push(v6);
    if (source === 'asn-csv') {
      const asnFact = (organization: string) => factId(source, { organization, userType: '', domain: '', geo: null });
      await readAsnCsv(
        file,
        (r) => table.add(r.first, r.last, asnFact(r.organization)),
        (n) => progress.update(n),
        (r) => v6.push(r.first, r.last, asnFact(r.organization)),
      );
    } else {
      const reader = source === 'geoip2-enterprise' ? readers.enterprise! : source === 'geoip2-isp' ? readers.isp! : readers.asn!;
      const toFacts = (source === 'geoip2-enterprise' ? enterpriseFacts : source === 'geoip2-isp' ? ispFacts : asnFacts) as (r: unknown) => NetworkFacts;
      for (const n of ipv4Networks<unknown>(reader)) {
        table.add(n.first, n.last, factId(source, toFacts(n.record)));
        if ((table.size & 0xffff) === 0) progress.update(table.size - before);
      }
      for (const n of ipv6Networks<unknown>(reader)) v6.push(n.first, n.last, factId(source, toFacts(n.record)));
    }
    sources[source] = { file, networks: table.size - before + v6.length, ipv6_networks: v6.length };
    progress.end();
  }
  const attribute = <T>(reader: MmdbFile<T> | null, file: string | undefined, name: string, idOf: (r: T) => number): Attribute => {
    const v4 = new RunList();
    const v6 = new Networks6(ranks);
    if (!reader) return { v4, v6 };
    for (const n of ipv4Networks<T>(reader)) {
      const v = idOf(n.record);
      if (v >= 0) v4.push(n.first, n.last, v);
    }
    for (const n of ipv6Networks<T>(reader)) {
      const v = idOf(n.record);
      if (v >= 0) v6.push(n.first, n.last, v);
    }
    sources[name] = { file: file!, networks: v4.length + v6.length, ipv6_networks: v6.length };
    return { v4, v6 };
  };
  const domains = new Interner<string>();
  const domainDb = attribute(readers.domain, opts.geoip2Domain, 'geoip2-domain', (r) => (r.domain ? domains.id(r.domain, () => r.domain!) : -1));
  const geos = new Interner<Geo>();
  const cityDb = attribute(readers.city, opts.city, 'city', (r) => {
    const g = geoOf(r);
    return g ? geos.id(`${g.country}\u0000${g.state}\u0000${g.city}`, () => g) : -1;
  });
  const privacies = new Interner<PrivacyReason>();
  const anonymousDb = attribute(readers.anonymous, opts.anonymousIp, 'anonymous-ip', (r) => {
    const p = privacyOf(r);
    return p ? privacies.id(p, () => p) : -1;
  });
  ranks.freeze();
  const table6 = new PrecedenceTable();
  for (const v6 of networks6) v6.addTo(table6);

  // 3. Domains, laid over the winners.
  const pairs = new Interner<{ fact: number; domain: string }>();
  const withDomains = (runs: RunList, domainRuns: RunList): RunList =>
    overlay(runs, domainRuns, (fact, d) =>
      pairs.id(pairKey(fact, d, domains.values.length), () => ({ fact, domain: d >= 0 ? domains.values[d] : facts.values[fact].domain })),
    );

  // 4. Kind and company per (network, domain), memoised per pair.
  const resolved: Resolution[] = [];
  const resolution = (pair: number): Resolution => (resolved[pair] ??= resolvePair(pairs.values[pair]));
  const resolvePair = ({ fact, domain }: { fact: number; domain: string }): Resolution => {
    const f = facts.values[fact];
    const kind = kindForUserType(f.userType, mapping.user_type);
    const base = { facts: f, domain, geo: f.geo, privacy: null };
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

  // 5. Privacy, per (pair or none, reason or none).
  const staged = new Interner<Resolution>();
  const stage = (pair: number, p: number): number =>
    staged.id(pairKey(pair + 1, p, privacies.values.length), () => {
      const privacy = p >= 0 ? privacies.values[p] : null;
      if (pair < 0) {
        const kind = privacyKind(privacy!);
        return { kind, companyDomain: '', confidence: KIND_CONFIDENCE, rule: null, facts: NO_FACTS, domain: '', geo: null, privacy };
      }
      const res = resolution(pair);
      if (privacy === null) return res;
      // A network that says nothing else is written for its privacy reason alone.
      if (res.kind === null) return { ...res, kind: privacyKind(privacy), confidence: KIND_CONFIDENCE, rule: null, privacy };
      return { ...res, privacy };
    });

  const finals = new Interner<{ resolved: number; geo: Geo | null }>();
  const rows = new Interner<{ cells: string[] | null; addressesOf: Resolution; company: CompanyRow | null }>();
  const rowOf = (final: number): number => {
    const { resolved: r, geo } = finals.values[final];
    const res = staged.values[r];
    const company = res.kind === 'company' ? companies.get(res.companyDomain)! : null;
    const cells =
      res.kind === null
        ? null
        : [res.kind, company?.company_id ?? '', res.confidence, geo?.country ?? '', geo?.state ?? '', geo?.city ?? '', res.privacy ?? ''];
    const key = cells
      ? `w\u0000${res.rule ?? ''}\u0000${cells.join('\u0000')}`
      : `n\u0000${res.rule}\u0000${res.facts.organization}\u0000${res.domain}\u0000${res.facts.userType}`;
    return rows.id(key, () => ({ cells, addressesOf: res, company }));
  };

  /** Steps 3–6 for one family: the rows' runs, adjacent runs that write the same row merged. */
  const resolveFamily = (table: PrecedenceTable, domainRuns: RunList, privacyRuns: RunList, cityRuns: RunList): RunList => {
    // Precedence, with one refinement: a network that says nothing usable wherever it wins (no kind, no
    // company: an ISP or ASN organization nobody has firmographics for) gives way to the networks beneath
    // it, so a more specific fallback range cannot hide Enterprise's user_type. Repeated until stable
    // (each round can only expose networks of lower layers); the silent ones still fill what is left, so
    // the report lists them as unmatched.
    const silent = new Set<number>();
    let runs: RunList;
    for (;;) {
      runs = withDomains(
        table.resolve((fact) => !silent.has(fact)),
        domainRuns,
      );
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
    if (silent.size > 0)
      runs = fillGaps(
        runs,
        withDomains(
          table.resolve((fact) => silent.has(fact)),
          domainRuns,
        ),
      );
    // 5. Privacy laid over the result, and written alone where nothing else is.
    runs = overlay(runs, privacyRuns, stage);
    const privacyOnly = new RunList();
    for (let i = 0; i < privacyRuns.length; i++) privacyOnly.push(privacyRuns.first[i], privacyRuns.last[i], stage(-1, privacyRuns.value[i]));
    runs = fillGaps(runs, privacyOnly);
    // 6. City geo laid over the result.
    runs = overlay(runs, cityRuns, (r, g) =>
      finals.id(pairKey(r, g, geos.values.length), () => ({ resolved: r, geo: staged.values[r].geo ?? (g >= 0 ? geos.values[g] : null) })),
    );
    const out = new RunList();
    const rowOfFinal: number[] = [];
    for (let i = 0; i < runs.length; i++) out.push(runs.first[i], runs.last[i], (rowOfFinal[runs.value[i]] ??= rowOf(runs.value[i])));
    return out;
  };
  progress.phase('precedence');
  const out4 = resolveFamily(table, domainDb.v4, anonymousDb.v4, cityDb.v4);
  const out6 = resolveFamily(table6, domainDb.v6.runs(), anonymousDb.v6.runs(), cityDb.v6.runs());
  progress.end();

  const counter = new CoverageCounter();
  const counter6 = new CoverageCounter();
  return replaceFolder(opts.out, async (dir) => {
    const networks = new CsvWriter(join(dir, SOURCE_FILES.networks), NETWORK_COLUMNS);
    progress.phase('write', out4.length + out6.length);
    // 7. Rows: IPv4 counted in addresses, IPv6 in /64 blocks.
    const write = async (
      out: RunList,
      c: CoverageCounter,
      done: number,
      text: (first: number, last: number) => string,
      size: (first: number, last: number) => number,
    ) => {
      for (let i = 0; i < out.length; i++) {
        const { cells, addressesOf: res, company } = rows.values[out.value[i]];
        const addresses = size(out.first[i], out.last[i]);
        if (res.rule) c.join(res.rule, addresses, res.facts.organization, res.domain, res.facts.userType);
        if (cells === null) {
          c.notWritten(addresses);
          continue;
        }
        networks.write([text(out.first[i], out.last[i]), ...cells]);
        c.network(cells[0], addresses, company ? { id: company.company_id, firmographics: hasFirmographics(company) } : undefined, res.privacy);
        if ((i & 0xffff) === 0) {
          progress.update(done + i);
          await networks.drain();
        }
      }
    };
    try {
      await write(out4, counter, 0, networkText, (first, last) => last - first + 1);
      await write(
        out6,
        counter6,
        out4.length,
        (first, last) => networkText6(ranks.firstAddress(first), ranks.lastAddress(last)),
        (first, last) => blocks64(ranks.lastAddress(last) - ranks.firstAddress(first) + 1n),
      );
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
    if (out6.length > 0) report.ipv6 = ipv6Section(counter6.finish({ total: 0, withFirmographics: 0 }), true);
    writeFileSync(join(dir, IMPORT_REPORT_FILE), JSON.stringify(report, null, 2) + '\n');
    return report;
  });
}

/** A company known only from a network's registered domain (no firmographics record). */
function domainOnlyCompany(domain: string, name: string): CompanyRow {
  const row = Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])) as CompanyRow;
  return { ...row, company_id: domain, name, domain };
}
