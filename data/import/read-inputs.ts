/**
 * Steps 1–2 of `data import` and the attribute databases' reading: the input files opened (all first,
 * so a wrong path or type fails before any work), firmographics → companies, the network sources into
 * precedence tables (IPv6 kept aside until every input is read: their ranks need all boundaries), and
 * the Domain, City and Anonymous IP databases as runs.
 */
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { PrivacyReason } from '../../core/vocabulary.ts';
import type { Progress } from '../progress.ts';
import { readAsnCsv } from './asn-csv.ts';
import { ImportError } from './errors.ts';
import { readFirmographics } from './firmographics.ts';
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
import type { ImportOptions } from './import.ts';
import { outsideIpv4 } from './ipv6.ts';
import type { ImportMapping } from './mapping.ts';
import { ipv4Networks, ipv6Networks, type MmdbFile, openMmdb } from './mmdb-networks.ts';
import { Interner, type Ipv6Ranks, type NetworkSource, PrecedenceTable, RunList } from './precedence.ts';
import type { CoverageReport } from './report.ts';
import { type FirmographicsIndex, indexFirmographics } from './resolve.ts';

/** The network sources given, lowest priority first (precedence.ts). */
export type GivenSources = [NetworkSource, string | undefined][];

export function givenSources(opts: ImportOptions): GivenSources {
  const given: GivenSources = [
    ['asn-csv', opts.asnCsv],
    ['asn-mmdb', opts.asnMmdb],
    ['geoip2-isp', opts.geoip2Isp],
    ['geoip2-enterprise', opts.geoip2Enterprise],
  ];
  if (!given.some(([, f]) => f)) throw new ImportError('give at least one network source: --geoip2-enterprise, --geoip2-isp, --asn-mmdb or --asn-csv');
  return given;
}

export type Readers = ReturnType<typeof openReaders>;

/** Every MaxMind DB given, opened and its database type checked. */
export function openReaders(opts: ImportOptions) {
  return {
    enterprise: opts.geoip2Enterprise ? openMmdb<EnterpriseRecord>(opts.geoip2Enterprise, DATABASE_TYPES['geoip2-enterprise'], '--geoip2-enterprise') : null,
    isp: opts.geoip2Isp ? openMmdb<IspRecord>(opts.geoip2Isp, DATABASE_TYPES['geoip2-isp'], '--geoip2-isp') : null,
    asn: opts.asnMmdb ? openMmdb<AsnRecord>(opts.asnMmdb, DATABASE_TYPES['asn-mmdb'], '--asn-mmdb') : null,
    domain: opts.geoip2Domain ? openMmdb<DomainRecord>(opts.geoip2Domain, DATABASE_TYPES['geoip2-domain'], '--geoip2-domain') : null,
    city: opts.city ? openMmdb<CityRecord>(opts.city, DATABASE_TYPES.city, '--city') : null,
    anonymous: opts.anonymousIp ? openMmdb<AnonymousIpRecord>(opts.anonymousIp, DATABASE_TYPES['anonymous-ip'], '--anonymous-ip') : null,
  };
}

export interface Companies {
  /** Firmographics by domain, for the join (resolve.ts). */
  index: FirmographicsIndex;
  /** Companies by domain: firmographics first, domain-only companies added as networks find them. */
  byDomain: Map<string, CompanyRow>;
}

/** 1. Firmographics → companies keyed by domain (a company_id given twice is an error). */
export async function readCompanies(file: string | undefined, mapping: ImportMapping, progress: Progress): Promise<Companies> {
  progress.phase('firmographics');
  const firmographics = file ? await readFirmographics(file, mapping, (n) => progress.update(n)) : [];
  progress.end();
  const ids = new Set<string>();
  const byDomain = new Map<string, CompanyRow>();
  for (const f of firmographics) {
    const company_id = f.company_id || f.domain;
    if (ids.has(company_id)) throw new ImportError(`--firmographics ${file}: company_id ${company_id} appears twice`);
    ids.add(company_id);
    byDomain.set(f.domain, { ...f, company_id });
  }
  return { index: indexFirmographics(firmographics), byDomain };
}

/** IPv6 networks of one input, kept until every input is read (their ranks need all boundaries). */
export class Networks6 {
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

export interface NetworkTables {
  /** IPv4 networks by precedence. */
  table: PrecedenceTable;
  /** IPv6 networks per input, ranked once every input is read (then `addTo` a table). */
  networks6: Networks6[];
  /** The network facts the tables' values stand for. */
  facts: Interner<NetworkFacts>;
}

/** 2. Network sources, lowest priority first, into precedence tables; each source's counts into `sources`. */
export async function readNetworkSources(
  given: GivenSources,
  readers: Readers,
  ranks: Ipv6Ranks,
  sources: CoverageReport['sources'],
  progress: Progress,
): Promise<NetworkTables> {
  const table = new PrecedenceTable();
  const networks6: Networks6[] = [];
  const facts = new Interner<NetworkFacts>();
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
  return { table, networks6, facts };
}

/** An attribute database (Domain, City, Anonymous IP) read in both families; values mapping to -1 are left out. */
export interface Attribute {
  v4: RunList;
  v6: Networks6;
}

export interface Attributes {
  domains: Interner<string>;
  domainDb: Attribute;
  geos: Interner<Geo>;
  cityDb: Attribute;
  privacies: Interner<PrivacyReason>;
  anonymousDb: Attribute;
}

/** The Domain, City and Anonymous IP databases (each optional) as runs of interned values. */
export function readAttributes(readers: Readers, opts: ImportOptions, ranks: Ipv6Ranks, sources: CoverageReport['sources']): Attributes {
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
  return { domains, domainDb, geos, cityDb, privacies, anonymousDb };
}
