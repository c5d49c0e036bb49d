/**
 * Steps 3–6 of `data import`, per family: the Domain db laid over the precedence winners, each (network,
 * domain) pair resolved to a kind and company once (memoised), privacy and City geo laid over the
 * result, and each run mapped to the row it writes (adjacent runs that write the same row merge later).
 * One RowResolver serves both families, so a pair, a stage or a row is interned once for both.
 */
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { PrivacyReason } from '../../core/vocabulary.ts';
import { COMPANY_COLUMNS, type Confidence } from '../sources/schema.ts';
import type { Geo, NetworkFacts } from './geoip2.ts';
import type { ImportMapping } from './mapping.ts';
import { fillGaps, Interner, overlay, type PrecedenceTable, pairKey, RunList } from './precedence.ts';
import type { Attributes, Companies } from './read-inputs.ts';
import { CONFIDENCE_BY_RULE, type JoinRule, joinCompany } from './resolve.ts';
import { kindForUserType } from './user-type.ts';

/** Confidence of networks whose kind (isp, hosting, bot …) comes straight from the source's user_type. */
const KIND_CONFIDENCE: Confidence = 'High';

/** The kind of a privacy network no network source knows. */
const privacyKind = (p: PrivacyReason): string => (p === 'hosting' ? 'hosting' : 'anonymizer');

export interface Resolution {
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

/** What a run of addresses writes: its cells (null: nothing), the resolution it was counted by, its company. */
export interface Row {
  cells: string[] | null;
  addressesOf: Resolution;
  company: CompanyRow | null;
}

const NO_FACTS: NetworkFacts = { organization: '', userType: '', domain: '', geo: null };

export class RowResolver {
  /** (network fact, domain) pairs. */
  private readonly pairs = new Interner<{ fact: number; domain: string }>();
  /** Per pair, its resolution (step 4), memoised. */
  private readonly resolved: Resolution[] = [];
  /** Per (pair or none, privacy reason or none), the resolution with privacy (step 5). */
  private readonly staged = new Interner<Resolution>();
  /** Per (staged, geo), the geo written (step 6). */
  private readonly finals = new Interner<{ resolved: number; geo: Geo | null }>();
  /** The rows written, shared by both families. */
  readonly rows = new Interner<Row>();

  constructor(
    private readonly facts: Interner<NetworkFacts>,
    private readonly attributes: Attributes,
    private readonly companies: Companies,
    private readonly mapping: ImportMapping,
  ) {}

  /** Steps 3–6 for one family: the rows' runs, adjacent runs that write the same row merged. */
  family(table: PrecedenceTable, domainRuns: RunList, privacyRuns: RunList, cityRuns: RunList): RunList {
    // Precedence, with one refinement: a network that says nothing usable wherever it wins (no kind, no
    // company: an ISP or ASN organization nobody has firmographics for) gives way to the networks beneath
    // it, so a more specific fallback range cannot hide Enterprise's user_type. Repeated until stable
    // (each round can only expose networks of lower layers); the silent ones still fill what is left, so
    // the report lists them as unmatched.
    const silent = new Set<number>();
    let runs: RunList;
    for (;;) {
      runs = this.withDomains(
        table.resolve((fact) => !silent.has(fact)),
        domainRuns,
      );
      const speaks = new Set<number>();
      const won = new Set<number>();
      for (let i = 0; i < runs.length; i++) {
        const pair = runs.value[i];
        won.add(this.pairs.values[pair].fact);
        if (this.resolution(pair).kind !== null) speaks.add(this.pairs.values[pair].fact);
      }
      const before = silent.size;
      for (const fact of won) if (!speaks.has(fact)) silent.add(fact);
      if (silent.size === before) break;
    }
    if (silent.size > 0)
      runs = fillGaps(
        runs,
        this.withDomains(
          table.resolve((fact) => silent.has(fact)),
          domainRuns,
        ),
      );
    // 5. Privacy laid over the result, and written alone where nothing else is.
    const stage = (pair: number, p: number): number => this.stage(pair, p);
    runs = overlay(runs, privacyRuns, stage);
    const privacyOnly = new RunList();
    for (let i = 0; i < privacyRuns.length; i++) privacyOnly.push(privacyRuns.first[i], privacyRuns.last[i], stage(-1, privacyRuns.value[i]));
    runs = fillGaps(runs, privacyOnly);
    // 6. City geo laid over the result.
    const geos = this.attributes.geos.values;
    runs = overlay(runs, cityRuns, (r, g) =>
      this.finals.id(pairKey(r, g, geos.length), () => ({ resolved: r, geo: this.staged.values[r].geo ?? (g >= 0 ? geos[g] : null) })),
    );
    const out = new RunList();
    const rowOfFinal: number[] = [];
    for (let i = 0; i < runs.length; i++) out.push(runs.first[i], runs.last[i], (rowOfFinal[runs.value[i]] ??= this.rowOf(runs.value[i])));
    return out;
  }

  /** 3. Domains, laid over the winners: a network's domain is the Domain db's, else its own. */
  private withDomains(runs: RunList, domainRuns: RunList): RunList {
    const domains = this.attributes.domains.values;
    return overlay(runs, domainRuns, (fact, d) =>
      this.pairs.id(pairKey(fact, d, domains.length), () => ({ fact, domain: d >= 0 ? domains[d] : this.facts.values[fact].domain })),
    );
  }

  /** 4. Kind and company of a (network, domain) pair, memoised per pair. */
  private resolution(pair: number): Resolution {
    this.resolved[pair] ??= this.resolvePair(this.pairs.values[pair]);
    return this.resolved[pair];
  }

  private resolvePair({ fact, domain }: { fact: number; domain: string }): Resolution {
    const f = this.facts.values[fact];
    const kind = kindForUserType(f.userType, this.mapping.user_type);
    const base = { facts: f, domain, geo: f.geo, privacy: null };
    if (kind !== null && kind !== 'company') return { ...base, kind, companyDomain: '', confidence: KIND_CONFIDENCE, rule: null };
    const join = joinCompany(f.organization, domain, this.companies.index);
    // Without a user_type saying "company", only a firmographics company makes one: an ISP's or a
    // carrier's registered domain must not turn its subscribers into a company.
    if (join.rule === 'unmatched' || (join.rule === 'domain-only' && kind === null))
      return { ...base, kind: null, companyDomain: '', confidence: 'Low', rule: 'unmatched' };
    if (join.rule === 'domain-only') {
      const companies = this.companies.byDomain;
      if (!companies.has(join.domain)) companies.set(join.domain, domainOnlyCompany(join.domain, join.name));
      return { ...base, kind: 'company', companyDomain: join.domain, confidence: CONFIDENCE_BY_RULE[join.rule], rule: join.rule };
    }
    return { ...base, kind: 'company', companyDomain: join.company.domain, confidence: CONFIDENCE_BY_RULE[join.rule], rule: join.rule };
  }

  /** 5. Privacy, per (pair or none, reason or none). */
  private stage(pair: number, p: number): number {
    const privacies = this.attributes.privacies.values;
    return this.staged.id(pairKey(pair + 1, p, privacies.length), () => {
      const privacy = p >= 0 ? privacies[p] : null;
      if (pair < 0) {
        const kind = privacyKind(privacy!);
        return { kind, companyDomain: '', confidence: KIND_CONFIDENCE, rule: null, facts: NO_FACTS, domain: '', geo: null, privacy };
      }
      const res = this.resolution(pair);
      if (privacy === null) return res;
      // A network that says nothing else is written for its privacy reason alone.
      if (res.kind === null) return { ...res, kind: privacyKind(privacy), confidence: KIND_CONFIDENCE, rule: null, privacy };
      return { ...res, privacy };
    });
  }

  /** The row a final (staged resolution, geo) writes; equal rows share an id so adjacent runs merge. */
  private rowOf(final: number): number {
    const { resolved: r, geo } = this.finals.values[final];
    const res = this.staged.values[r];
    const company = res.kind === 'company' ? this.companies.byDomain.get(res.companyDomain)! : null;
    const cells =
      res.kind === null
        ? null
        : [res.kind, company?.company_id ?? '', res.confidence, geo?.country ?? '', geo?.state ?? '', geo?.city ?? '', res.privacy ?? ''];
    const key = cells
      ? `w\u0000${res.rule ?? ''}\u0000${cells.join('\u0000')}`
      : `n\u0000${res.rule}\u0000${res.facts.organization}\u0000${res.domain}\u0000${res.facts.userType}`;
    return this.rows.id(key, () => ({ cells, addressesOf: res, company }));
  }
}

/** A company known only from a network's registered domain (no firmographics record). */
function domainOnlyCompany(domain: string, name: string): CompanyRow {
  const row = Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])) as CompanyRow;
  return { ...row, company_id: domain, name, domain };
}
