/**
 * Companies: name, unique domain, industry with SIC/NAICS codes, size (employees and revenue kept
 * consistent), headquarters address and phone, offices (where its networks and people are), extra domains.
 */
import { createRequire } from 'node:module';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { type Rng, Weighted } from './random.ts';
import { TABLES } from './tables.ts';
import {
  BRAND_PREFIXES,
  BRAND_ROOTS,
  CAUSES,
  COINED_ENDS,
  COINED_MIDDLES,
  COINED_STARTS,
  GOVERNMENT_PATTERNS,
  NONPROFIT_PATTERNS,
  type PatternSet,
  PLACE_WORDS,
  PROFESSIONS,
  SCHOOL_PATTERNS,
  UNIVERSITY_PATTERNS,
  US_PLACE_WORDS,
} from './vocabulary/company-names.ts';
import { COUNTRIES, type Country, fillPattern, type Place, pickStreet, type Region } from './vocabulary/geography.ts';
import { INDUSTRIES, type Industry, type Subindustry } from './vocabulary/industries.ts';
import { asciiSlug, NAMES } from './vocabulary/people-names.ts';
import { EMPLOYEE_RANGES, revenueRange, roundSignificant, SIZE_TIERS, type SizeTier } from './vocabulary/sizes.ts';

/** Restrictions for a company that must exist (a segment's member, an excluded or hot account). */
export interface CompanyConstraints {
  industries?: readonly string[];
  employeeRanges?: readonly string[];
  regions?: readonly string[];
  countries?: readonly string[];
}

export type EmailPattern = 'first.last' | 'flast' | 'first' | 'firstl' | 'first_last' | 'f.last' | 'firstlast' | 'lastf';

export interface Company {
  index: number;
  id: string;
  name: string;
  domain: string;
  extraDomains: string[];
  industry: Industry;
  sub: Subindustry;
  codes: [string, string, string, string];
  tier: SizeTier;
  employees: number;
  revenue: number;
  /** offices[0] is the headquarters. */
  offices: Place[];
  address: string;
  zip: string;
  phone: string;
  emailPattern: EmailPattern;
}

const require = createRequire(import.meta.url);
/** Free-mail and disposable-mail domains (the `email-providers` package): never a company domain. */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set(require('email-providers/all.json') as string[]);

export function companyId(index: number): string {
  return String(100_001 + index);
}

const EMAIL_PATTERNS = new Weighted<EmailPattern>([
  ['first.last', 55],
  ['flast', 14],
  ['first', 6],
  ['firstl', 4],
  ['first_last', 4],
  ['f.last', 7],
  ['firstlast', 7],
  ['lastf', 3],
]);

const US_ALT_TLDS = ['net', 'co', 'us'];
const DOMAIN_SUFFIXES = ['hq', 'group', 'global', 'inc', 'co'];
const MARKETING_PREFIXES = ['get', 'try', 'use'];

/** Slugs of brand and industry words (a bounded vocabulary), memoised. */
const SLUGS: [Map<string, string>, Map<string, string>] = [new Map(), new Map()];
function slugOf(text: string, umlautE: boolean): string {
  const memo = SLUGS[umlautE ? 1 : 0];
  let s = memo.get(text);
  if (s === undefined) {
    s = asciiSlug(text, { umlautE });
    if (memo.size < 200_000) memo.set(text, s);
  }
  return s;
}

const ORG_ABBREVIATIONS: [RegExp, string][] = [
  [/\binstitute of technology\b/g, 'tech'],
  [/\bstate university\b/g, 'state'],
  [/\bcommunity college\b/g, 'cc'],
  [/\bunified school district\b/g, 'usd'],
  [/\bindependent school district\b/g, 'isd'],
  [/\bpublic schools\b/g, 'schools'],
  [/\bhigh school\b/g, 'hs'],
  [/\buniversity\b/g, 'u'],
  [/\bdepartment of\b/g, ''],
  [/\bcity council\b/g, 'council'],
];
const ORG_STOP_WORDS = /\b(of|the|and|for|de|del|des|du|di|la|le|der|die|das|für|do|da|degli)\b/g;

export class CompanyFactory {
  /** Every domain handed out (primary and extra), to keep them unique. */
  private readonly domains = new Set<string>();

  constructor(private readonly rng: Rng) {}

  make(index: number, constraints?: CompanyConstraints): Company {
    const rng = this.rng;
    const industry = constraints?.industries ? pickIndustry(rng, constraints.industries) : TABLES.industries.draw(rng);
    const sub = TABLES.sub(industry).draw(rng);
    const tier = constraints?.employeeRanges ? pickTier(rng, constraints.employeeRanges, sub.minTier ?? 0) : this.tierFor(sub);
    const country = constraints?.countries || constraints?.regions ? pickCountry(rng, constraints) : TABLES.countries.draw(rng);
    const hq = TABLES.place(rng, country);
    const offices = this.offices(hq, tier);
    const employees = employeeCount(rng, tier);
    const revenue = annualRevenue(rng, employees, industry);

    // Names may repeat (as in real data: many a "Summit Partners"); domains never do.
    const [name, brand, word, invented] = this.name(sub, tier, hq);
    const domain = this.claimDomain(this.domainCandidates(name, brand, word, invented, sub, country));
    const extraDomains = this.extraDomains(brand, domain, sub, tier, offices);

    return {
      index,
      id: companyId(index),
      name,
      domain,
      extraDomains,
      industry,
      sub,
      codes: rng.pick(sub.codes),
      tier,
      employees,
      revenue,
      offices,
      address: country.address(rng, pickStreet(rng, hq)),
      zip: fillPattern(rng, rng.pick(hq.city.zips)),
      phone: fillPattern(rng, hq.city.phone),
      emailPattern: tier.index <= 1 && rng.chance(0.25) ? 'first' : EMAIL_PATTERNS.draw(rng),
    };
  }

  row(c: Company): CompanyRow {
    const hq = c.offices[0];
    return {
      company_id: c.id,
      name: c.name,
      domain: c.domain,
      industry: c.industry.name,
      subindustry: c.sub.name,
      sic: c.codes[0],
      sic_description: c.codes[1],
      naics: c.codes[2],
      naics_description: c.codes[3],
      country: hq.country.name,
      country_iso_code: hq.country.iso,
      region: hq.country.region,
      state: hq.state.name,
      state_code: hq.state.code,
      city: hq.city.name,
      address: c.address,
      zip: c.zip,
      phone: c.phone,
      employee_count: String(c.employees),
      employee_range: c.tier.range,
      annual_revenue: String(c.revenue),
      revenue_range: revenueRange(c.revenue),
    };
  }

  /** A size tier for the sub-industry: never below its minimum (no 3-person airline), schools and non-profits rarely huge. */
  private tierFor(sub: Subindustry): SizeTier {
    const rng = this.rng;
    let t = TABLES.tiers.draw(rng);
    if (t.index < (sub.minTier ?? 0)) t = pickTier(rng, EMPLOYEE_RANGES, sub.minTier ?? 0);
    if ((sub.naming === 'school' || sub.naming === 'nonprofit') && t.index > 4) t = SIZE_TIERS[rng.int(Math.max(1, sub.minTier ?? 0), 4)];
    return t;
  }

  private offices(hq: Place, tier: SizeTier): Place[] {
    const rng = this.rng;
    const offices = [hq];
    const wanted = rng.int(tier.offices[0], tier.offices[1]);
    for (let attempt = 0; offices.length < wanted && attempt < wanted * 3; attempt++) {
      const abroad = tier.index >= 4 && rng.chance(0.35);
      const place = TABLES.place(rng, abroad ? TABLES.countries.draw(rng) : hq.country);
      if (!offices.some((o) => o.city === place.city)) offices.push(place);
    }
    return offices;
  }

  /** [name, brand part, industry word, whether the brand is invented (compound or coined)] */
  private name(sub: Subindustry, tier: SizeTier, hq: Place): [string, string, string, boolean] {
    const rng = this.rng;
    const country = hq.country;
    const key = country.iso === 'US' ? 'us' : country.language;
    const patterns = (set: PatternSet) => set[key] ?? set.en!;
    switch (sub.naming) {
      case 'university':
        return [this.fillOrgPattern(rng.pick(patterns(UNIVERSITY_PATTERNS)), hq), '', '', false];
      case 'school':
        return [this.fillOrgPattern(rng.pick(patterns(SCHOOL_PATTERNS)), hq), '', '', false];
      case 'government':
        return [this.fillOrgPattern(rng.pick(patterns(GOVERNMENT_PATTERNS[sub.name] ?? GOVERNMENT_PATTERNS['Local Government'])), hq), '', '', false];
      case 'nonprofit':
        return [this.fillOrgPattern(rng.pick(NONPROFIT_PATTERNS[sub.name] ?? NONPROFIT_PATTERNS.Foundations), hq), '', '', false];
      default: {
        const local = sub.localWords?.[country.language as keyof NonNullable<Subindustry['localWords']>];
        let word = local && rng.chance(0.4) ? rng.pick(local) : rng.pick(sub.words);
        let brand: string;
        let invented = false;
        const r = rng.float();
        if (r < 0.4 || r >= 0.88) {
          brand = compoundBrand(rng);
          invented = true;
        } else if (r < 0.55) {
          brand = coinedBrand(rng);
          invented = true;
        } else if (r < 0.75) {
          const culture = NAMES[TABLES.culture(rng, country)];
          const partners = sub.partners === true && rng.chance(0.35);
          brand = partners ? `${rng.pick(culture.last)} & ${rng.pick(culture.last)}` : rng.pick(culture.last);
        } else {
          brand = rng.chance(0.4) ? hq.city.name : rng.pick(country.iso === 'US' && rng.chance(0.4) ? US_PLACE_WORDS : PLACE_WORDS);
        }
        // A surname or a place word alone is not a company name: "Harper Analytics", "Pacific Freight".
        if (word === '' && !invented) word = rng.pick(sub.words.filter((x) => x !== ''));
        let name = word ? `${brand} ${word}` : brand;
        if (word !== 'LLP' && rng.chance(country.legalShare)) name += ` ${rng.pick(tier.index >= 5 ? country.legalLarge : country.legalSmall)}`;
        return [name, brand, word, invented];
      }
    }
  }

  private fillOrgPattern(pattern: string, hq: Place): string {
    const rng = this.rng;
    return pattern.replace(/\{(\w+)\}/g, (_, key: string) => {
      switch (key) {
        case 'city':
          return hq.city.name;
        case 'state':
          return hq.state.name || hq.country.name;
        case 'surname':
          return rng.pick(NAMES[hq.country.cultures[0][0]].last);
        case 'brand':
          return compoundBrand(rng);
        case 'place':
          return rng.pick(PLACE_WORDS);
        case 'profession':
          return rng.pick(PROFESSIONS);
        case 'cause':
          return rng.pick(CAUSES);
        default:
          return key;
      }
    });
  }

  private domainCandidates(name: string, brand: string, word: string, invented: boolean, sub: Subindustry, country: Country): string[] {
    const rng = this.rng;
    const ccTld = country.tld;
    if (sub.naming && sub.naming !== 'business') {
      let text = name.toLowerCase();
      for (const [re, to] of ORG_ABBREVIATIONS) text = text.replace(re, to);
      text = text.replace(ORG_STOP_WORDS, ' ');
      const umlautE = country.language === 'de';
      const words = text
        .split(/[\s-]+/)
        .map((x) => asciiSlug(x, { umlautE }))
        .filter(Boolean);
      const sep = country.language === 'en' ? '' : '-';
      const full = words.join(sep);
      const acronym = words.map((x) => x[0]).join('');
      const tld = sub.naming === 'university' || sub.naming === 'school' ? country.eduTld : sub.naming === 'government' ? country.govTld : 'org';
      const schoolTld = sub.naming === 'school' && country.iso === 'US' ? 'org' : tld;
      // Short names in full (cityofaustin.gov); long ones by their initials (camp.org), as real bodies do.
      const short = full.length <= 28 ? full : acronym.length >= 3 ? acronym : words.slice(0, 3).join(sep);
      return [
        `${short}.${schoolTld}`,
        `${full.length <= 40 ? full : words.slice(0, 4).join(sep)}.${schoolTld}`,
        `${short}.org`,
        `${short}-${country.iso.toLowerCase()}.org`,
      ];
    }
    // Invented brands are plain ASCII words: lower-casing is their slug.
    const b = invented ? brand.toLowerCase() : slugOf(brand, country.language === 'de');
    const wd = slugOf(word, country.language === 'de');
    const full = wd ? `${b}${wd}` : b;
    const tld =
      country.iso === 'US'
        ? sub.tlds && rng.chance(0.2)
          ? rng.pick(sub.tlds)
          : rng.chance(0.92)
            ? 'com'
            : rng.pick(US_ALT_TLDS)
        : rng.chance(0.55)
          ? ccTld
          : sub.tlds && rng.chance(0.2)
            ? rng.pick(sub.tlds)
            : 'com';
    // Brand-only domains (northwind.com) only for invented brands, never for a surname or a place word.
    const first = !wd || rng.chance(0.7) || !invented ? full : rng.chance(0.7) ? b : `${b}-${wd}`;
    return [
      `${first}.${tld}`,
      `${full}.${tld}`,
      `${full}.com`,
      `${b}-${wd || 'group'}.${tld}`,
      `${b}${wd}${rng.pick(DOMAIN_SUFFIXES)}.com`,
      `${b}${wd}-${country.iso.toLowerCase()}.${tld}`,
      `get${full}.com`,
    ];
  }

  /** Candidates are built from slugs, so they are well-formed; this checks only that they are free. */
  private usable(domain: string): boolean {
    return domain.length <= 63 && !this.domains.has(domain) && !FREE_MAIL_DOMAINS.has(domain);
  }

  /** The first free candidate; numbered variants of the first one as a last resort. */
  private claimDomain(candidates: string[]): string {
    for (const d of candidates) {
      if (this.usable(d)) {
        this.domains.add(d);
        return d;
      }
    }
    const [label, ...rest] = candidates[0].split('.');
    for (let n = 2; ; n++) {
      const d = `${label}${n}.${rest.join('.')}`;
      if (this.usable(d)) {
        this.domains.add(d);
        return d;
      }
    }
  }

  private extraDomains(brand: string, primary: string, sub: Subindustry, tier: SizeTier, offices: Place[]): string[] {
    const rng = this.rng;
    if (!rng.chance([0.04, 0.07, 0.12, 0.2, 0.3, 0.45, 0.6, 0.75][tier.index])) return [];
    const out: string[] = [];
    const add = (d: string) => {
      if (this.usable(d)) {
        this.domains.add(d);
        out.push(d);
      }
    };
    const label = primary.slice(0, primary.indexOf('.'));
    const tld = primary.slice(primary.indexOf('.') + 1);
    const hqCc = offices[0].country.tld;
    // The same name under another TLD.
    add(`${label}.${tld === 'com' ? (hqCc === 'com' ? 'net' : hqCc) : 'com'}`);
    // Country sites of a multinational.
    for (const o of offices.slice(1)) if (o.country !== offices[0].country && rng.chance(0.5)) add(`${label}.${o.country.tld}`);
    // Acquired brands.
    if (tier.index >= 3 && (!sub.naming || sub.naming === 'business')) {
      for (let k = rng.chance(0.3) ? rng.int(1, 3) : 0; k > 0; k--) {
        const acquired = rng.chance(0.5) ? compoundBrand(rng) : coinedBrand(rng);
        const acquiredWord = rng.pick(sub.words);
        add(`${acquired.toLowerCase()}${rng.chance(0.5) ? slugOf(acquiredWord, false) : ''}.com`);
      }
    }
    // Marketing domains of software companies.
    if (sub.tlds && brand && rng.chance(0.3)) add(`${rng.pick(MARKETING_PREFIXES)}${label}.com`);
    return out;
  }
}

function compoundBrand(rng: Rng): string {
  for (;;) {
    const p = rng.pick(BRAND_PREFIXES);
    const r = rng.pick(BRAND_ROOTS);
    if (p.toLowerCase() !== r && !p.toLowerCase().endsWith(r)) return p + r;
  }
}

const VOWEL_END = /[aeiouy]$/;
const VOWEL_START = /^[aeiouy]/;

/** "Vo" + "lex" + "ia" = Volexia; parts that would meet vowel-to-vowel ("Tupliia") are drawn again. */
function coinedBrand(rng: Rng): string {
  for (;;) {
    const head = rng.pick(COINED_STARTS) + rng.pick(COINED_MIDDLES);
    const end = rng.pick(COINED_ENDS);
    if (!(VOWEL_END.test(head) && VOWEL_START.test(end)) && head[head.length - 1] !== end[0]) return head + end;
  }
}

function pickIndustry(rng: Rng, names: readonly string[]): Industry {
  const lc = names.map((n) => n.toLowerCase());
  const options = INDUSTRIES.filter((i) => lc.includes(i.name.toLowerCase()));
  if (options.length === 0) throw new Error(`no industry among ${names.join(', ')}`);
  return rng.pick(options);
}

/** A tier among the given ranges, at least `minTier` when the ranges allow it. */
function pickTier(rng: Rng, ranges: readonly string[], minTier: number): SizeTier {
  const options = SIZE_TIERS.filter((t) => ranges.includes(t.range));
  if (options.length === 0) throw new Error(`no employee range among ${ranges.join(', ')}`);
  const big = options.filter((t) => t.index >= minTier);
  return new Weighted((big.length > 0 ? big : options).map((t) => [t, t.weight] as const)).draw(rng);
}

function pickCountry(rng: Rng, c: CompanyConstraints): Country {
  const options = COUNTRIES.filter((x) => (!c.countries || c.countries.includes(x.iso)) && (!c.regions || c.regions.includes(x.region as Region)));
  if (options.length === 0) throw new Error('no country satisfies the constraints');
  return new Weighted(options.map((x) => [x, x.weight] as const)).draw(rng);
}

function employeeCount(rng: Rng, tier: SizeTier): number {
  const raw = Math.floor(rng.logUniform(tier.min, tier.index === 7 ? 120_000 : tier.max + 1));
  const rounded =
    raw < 50
      ? raw
      : raw < 200
        ? Math.round(raw / 5) * 5
        : raw < 1000
          ? Math.round(raw / 10) * 10
          : raw < 10_000
            ? Math.round(raw / 50) * 50
            : Math.round(raw / 500) * 500;
  return Math.min(tier.max, Math.max(tier.min, rounded));
}

function annualRevenue(rng: Rng, employees: number, industry: Industry): number {
  const raw = employees * industry.revenuePerEmployee * rng.logUniform(0.55, 1.8);
  if (raw < 1_000_000) return 1_000_000 + rng.int(0, 90) * 10_000;
  return roundSignificant(raw, 3);
}
