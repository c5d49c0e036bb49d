/**
 * people.csv: contacts of each company (about five per company, more for big ones) with multicultural names,
 * emails in the company's own address format at its domain, titles across levels and functions (some in
 * German, French, Spanish or Portuguese), phones for some, LinkedIn URLs for most, mostly at the company's
 * offices.
 */
import type { Company, EmailPattern } from './companies.ts';
import type { RowSink } from './csv-writer.ts';
import { mix32, type Rng, Weighted } from './random.ts';
import { TABLES } from './tables.ts';
import { fillPattern, type Place } from './vocabulary/geography.ts';
import { asciiSlug, NAMES, type NameSet } from './vocabulary/people-names.ts';
import { FUNCTION_WEIGHTS, LEVEL_WEIGHTS, TITLES, type Title, type TitleFunction, type TitleLanguage, type TitleLevel } from './vocabulary/titles.ts';

/** What people generation needs of a company. */
export type PeopleCompany = Pick<Company, 'id' | 'domain' | 'extraDomains' | 'tier' | 'employees' | 'emailPattern' | 'offices'> & {
  /** A public body, school or non-profit: no VPs of Sales there. */
  institution: boolean;
};

export interface Person {
  id: string;
  level: TitleLevel;
  fn: TitleFunction;
}

/** A title the generator must hand out (the demo accounts' decision makers). */
export interface TitleWish {
  level: TitleLevel;
  fn: TitleFunction;
}

export function personId(index: number): string {
  return `P${String(index + 1).padStart(6, '0')}`;
}

const LEVELS = new Weighted(LEVEL_WEIGHTS);
/** Small companies: founders and generalists. */
const SMALL_COMPANY_LEVELS = new Weighted<TitleLevel>([
  ['C-Level', 20],
  ['VP', 4],
  ['Director', 10],
  ['Manager', 26],
  ['Staff', 40],
]);
const FUNCTIONS = new Weighted(FUNCTION_WEIGHTS);
const INSTITUTION_LEVELS = new Weighted<TitleLevel>([
  ['C-Level', 3],
  ['VP', 1],
  ['Director', 24],
  ['Manager', 30],
  ['Staff', 42],
]);
const INSTITUTION_FUNCTIONS = new Weighted<Exclude<TitleFunction, 'Executive'>>([
  ['Operations', 26],
  ['IT', 20],
  ['Finance', 15],
  ['Human Resources', 15],
  ['Legal', 7],
  ['Marketing', 10],
  ['Data & Analytics', 7],
]);
/** C-level roles an institution has. */
const INSTITUTION_ROLES = new Set(['ceo', 'president', 'md', 'coo', 'cfo', 'cio', 'ciso', 'chro', 'clo', 'cdo']);
const ALL_PATTERNS: EmailPattern[] = ['first.last', 'flast', 'first', 'firstl', 'first_last', 'f.last', 'firstlast', 'lastf'];

/** Titles by language, level and function (looked up per person, so no string keys). */
const TITLE_INDEX = {} as Record<TitleLanguage, Record<TitleLevel, Partial<Record<TitleFunction, Title[]>>>>;
for (const [lang, byLevel] of Object.entries(TITLES) as [TitleLanguage, Record<TitleLevel, Title[]>][]) {
  TITLE_INDEX[lang] = { 'C-Level': {}, VP: {}, Director: {}, Manager: {}, Staff: {} };
  for (const [level, titles] of Object.entries(byLevel) as [TitleLevel, Title[]][]) {
    for (const t of titles) (TITLE_INDEX[lang][level][t.fn] ??= []).push(t);
  }
}

/** Names with their email slug (`mueller`) and URL slug (`van-den-berg`), computed once per culture. */
interface SluggedNames {
  female: [string, string, string][];
  male: [string, string, string][];
  last: [string, string, string][];
}
const SLUGGED = new Map<NameSet, SluggedNames>();
for (const names of Object.values(NAMES)) {
  const slug = (list: string[]) =>
    list.map((n): [string, string, string] => [n, asciiSlug(n, { umlautE: names.umlautE }), asciiSlug(n, { umlautE: names.umlautE, separator: '-' })]);
  SLUGGED.set(names, { female: slug(names.female), male: slug(names.male), last: slug(names.last) });
}

/** The only contact of a one-person company, or the first of a small one. */
const FOUNDER_TITLES: Title[] = [
  { title: 'Founder', level: 'C-Level', fn: 'Executive', role: 'founder' },
  { title: 'Owner', level: 'C-Level', fn: 'Executive', role: 'owner' },
  { title: 'Founder & CEO', level: 'C-Level', fn: 'Executive', role: 'ceo' },
  { title: 'Managing Director', level: 'C-Level', fn: 'Executive', role: 'md' },
  { title: 'President', level: 'C-Level', fn: 'Executive', role: 'president' },
];

const LOCAL_TITLE_LANGUAGES = new Set<string>(['de', 'fr', 'es', 'pt']);

export class PeopleFactory {
  private next = 0;

  constructor(
    private readonly rng: Rng,
    /** Mixed into LinkedIn URL suffixes so they differ between seeds (and stay unique). */
    private readonly salt: number,
  ) {}

  get count(): number {
    return this.next;
  }

  /** Emits the people of a company; `wishes` are handed out first. */
  make(c: PeopleCompany, out: RowSink, wishes: readonly TitleWish[] = []): Person[] {
    const rng = this.rng;
    const n = Math.max(wishes.length, Math.min(c.employees, rng.int(c.tier.people[0], c.tier.people[1])));
    const locals = new Set<string>();
    const roles = new Set<string>();
    const people: Person[] = [];
    for (let k = 0; k < n; k++) {
      const index = this.next++;
      const id = personId(index);
      const place = this.location(c);
      const names = SLUGGED.get(NAMES[TABLES.culture(rng, place.country)])!;
      const female = rng.chance(0.5);
      const [first, firstSlug, firstUrl] = rng.pick(female ? names.female : names.male);
      const [last, lastSlug, lastUrl] = rng.pick(names.last);
      const wish = wishes[k];
      const lang = !wish && LOCAL_TITLE_LANGUAGES.has(place.country.language) && rng.chance(0.45) ? (place.country.language as TitleLanguage) : 'en';
      const title = this.title(lang, wish, !c.institution && c.tier.index <= 1 && k === 0, c.tier.index <= 1, c.institution, roles);
      const email = this.email(c, firstSlug, lastSlug, locals);
      const phone = rng.chance(0.5) ? fillPattern(rng, place.city.phone) : '';
      const mobile = rng.chance(0.35) ? fillPattern(rng, mobilePattern(rng, place)) : '';
      const linkedin = rng.chance(0.85) ? `https://www.linkedin.com/in/${firstUrl}-${lastUrl}-${hex8(mix32((index ^ this.salt) >>> 0))}` : '';
      out.write([
        id,
        email,
        first,
        last,
        female && title.feminine ? title.feminine : title.title,
        c.id,
        place.country.name,
        place.state.name,
        place.city.name,
        phone,
        mobile,
        linkedin,
      ]);
      people.push({ id, level: title.level, fn: title.fn });
    }
    return people;
  }

  private location(c: PeopleCompany): Place {
    const rng = this.rng;
    const r = rng.float();
    if (r < 0.05) return TABLES.place(rng, c.offices[0].country); // remote, somewhere in the home country
    if (r < 0.7 || c.offices.length === 1) return c.offices[0];
    return rng.pick(c.offices);
  }

  private title(lang: TitleLanguage, wish: TitleWish | undefined, founder: boolean, small: boolean, institution: boolean, roles: Set<string>): Title {
    const rng = this.rng;
    if (founder && !wish) {
      const t = rng.pick(FOUNDER_TITLES);
      roles.add(t.role!);
      return t;
    }
    let level = wish?.level ?? (institution ? INSTITUTION_LEVELS : small ? SMALL_COMPANY_LEVELS : LEVELS).draw(rng);
    if (level === 'C-Level') {
      const all = TITLES[lang]['C-Level'];
      for (let attempt = 0; attempt < 8; attempt++) {
        const t = rng.pick(all);
        if (
          (t.role && roles.has(t.role)) ||
          (wish && t.fn !== wish.fn) ||
          (institution && (!INSTITUTION_ROLES.has(t.role ?? '') || t.title.includes('Founder')))
        )
          continue;
        if (t.role) roles.add(t.role);
        return t;
      }
      level = 'VP';
    }
    if (institution && level === 'VP') level = 'Director';
    const fn = wish?.fn ?? (institution ? INSTITUTION_FUNCTIONS : FUNCTIONS).draw(rng);
    return rng.pick(TITLE_INDEX[lang][level][fn] ?? TITLE_INDEX.en[level][fn]!);
  }

  private email(c: PeopleCompany, f: string, l: string, taken: Set<string>): string {
    const rng = this.rng;
    const pattern = rng.chance(0.92) ? c.emailPattern : rng.pick(ALL_PATTERNS);
    const base = localPart(pattern, f, l) || 'contact';
    let local = base;
    for (let n = 2; taken.has(local); n++) local = `${base}${n}`;
    taken.add(local);
    const domain = c.extraDomains.length > 0 && rng.chance(0.08) ? rng.pick(c.extraDomains) : c.domain;
    return `${local}@${domain}`;
  }
}

const HEX_PAIRS = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Eight lower-case hex digits of a 32-bit number. */
function hex8(n: number): string {
  return HEX_PAIRS[n >>> 24] + HEX_PAIRS[(n >>> 16) & 255] + HEX_PAIRS[(n >>> 8) & 255] + HEX_PAIRS[n & 255];
}

function localPart(pattern: EmailPattern, f: string, l: string): string {
  switch (pattern) {
    case 'first.last':
      return `${f}.${l}`;
    case 'flast':
      return `${f.slice(0, 1)}${l}`;
    case 'first':
      return f;
    case 'firstl':
      return `${f}${l.slice(0, 1)}`;
    case 'first_last':
      return `${f}_${l}`;
    case 'f.last':
      return `${f.slice(0, 1)}.${l}`;
    case 'firstlast':
      return `${f}${l}`;
    case 'lastf':
      return `${l}${f.slice(0, 1)}`;
  }
}

/** Mobile numbers: the country's mobile formats, or (North America, Mexico) the city's own area code. */
function mobilePattern(rng: Rng, place: Place): string {
  if (place.country.mobiles.length > 0) return rng.pick(place.country.mobiles);
  if (place.country.iso === 'BR') return place.city.phone.replace('%###-####', '9####-####');
  return place.city.phone;
}
