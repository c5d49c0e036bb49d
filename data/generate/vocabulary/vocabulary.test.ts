import { describe, expect, it } from 'vitest';
import { Rng } from '../random.ts';
import { GOVERNMENT_PATTERNS, NONPROFIT_PATTERNS, SCHOOL_PATTERNS, UNIVERSITY_PATTERNS } from './company-names.ts';
import { COUNTRIES, DATA_CENTRES, fillPattern, findPlace, pickStreet, REGIONS } from './geography.ts';
import { INDUSTRIES } from './industries.ts';
import { asciiSlug, NAMES } from './people-names.ts';
import { DATA_NOW, INDUSTRY_TOPICS, INTENT_TOPICS, observedAt } from './signals.ts';
import { EMPLOYEE_RANGES, REVENUE_RANGES, revenueRange, SIZE_TIERS } from './sizes.ts';
import { TITLE_FUNCTIONS, TITLE_LEVELS, TITLES } from './titles.ts';

const rng = new Rng('vocabulary');

describe('geography', () => {
  it('has regions, unique state codes, known naming cultures and a street source for every city', () => {
    for (const c of COUNTRIES) {
      expect(REGIONS).toContain(c.region);
      expect(c.iso).toMatch(/^[A-Z]{2}$/);
      const codes = c.states.map((s) => s.code);
      expect(new Set(codes).size).toBe(codes.length);
      for (const [culture] of c.cultures) expect(NAMES[culture], culture).toBeDefined();
      for (const s of c.states) {
        for (const city of s.cities) {
          expect(city.streets?.length || c.streets.length, `${city.name} has no streets`).toBeGreaterThan(0);
          expect(pickStreet(rng, { country: c, city })).toBeTruthy();
        }
      }
    }
  });

  it('fills postcode and phone patterns with the right characters', () => {
    const sf = findPlace('US', 'San Francisco');
    for (let i = 0; i < 50; i++) {
      expect(fillPattern(rng, sf.city.zips[0])).toMatch(/^941\d\d$/);
      expect(fillPattern(rng, sf.city.phone)).toMatch(/^\+1 415-[2-9]\d\d-\d{4}$/);
      expect(fillPattern(rng, findPlace('GB', 'London').city.zips[0])).toMatch(/^EC1A \d[A-Z]{2}$/);
      expect(fillPattern(rng, findPlace('CA', 'Toronto').city.zips[0])).toMatch(/^M5V \d[A-Z]\d$/);
    }
  });

  it('places every data centre in a known city', () => {
    for (const [iso, city] of DATA_CENTRES) expect(() => findPlace(iso, city)).not.toThrow();
  });
});

describe('industries', () => {
  it('give every sub-industry SIC and NAICS codes with descriptions, and business names their words', () => {
    for (const i of INDUSTRIES) {
      expect(i.subindustries.length).toBeGreaterThanOrEqual(3);
      for (const s of i.subindustries) {
        for (const [sic, sicText, naics, naicsText] of s.codes) {
          expect(sic).toMatch(/^\d{4}$/);
          expect(naics).toMatch(/^\d{6}$/);
          expect(sicText.length && naicsText.length).toBeGreaterThan(0);
        }
        if (!s.naming)
          expect(
            s.words.some((x) => x !== ''),
            s.name,
          ).toBe(true);
        expect(s.minTier ?? 0).toBeLessThan(SIZE_TIERS.length);
      }
    }
  });

  it('have naming patterns for every language a country speaks', () => {
    for (const c of COUNTRIES) {
      const key = c.iso === 'US' ? 'us' : c.language;
      for (const set of [UNIVERSITY_PATTERNS, SCHOOL_PATTERNS, ...Object.values(GOVERNMENT_PATTERNS)]) {
        expect(set[key] ?? set.en, `${c.iso}`).toBeDefined();
      }
    }
    const nonprofits = INDUSTRIES.flatMap((i) => i.subindustries).filter((s) => s.naming === 'nonprofit');
    for (const s of nonprofits) expect(NONPROFIT_PATTERNS[s.name], s.name).toBeDefined();
    const governments = INDUSTRIES.flatMap((i) => i.subindustries).filter((s) => s.naming === 'government');
    for (const s of governments) expect(GOVERNMENT_PATTERNS[s.name], s.name).toBeDefined();
  });
});

describe('sizes', () => {
  it('map revenue to ranges at the boundaries', () => {
    expect(revenueRange(1_000_000)).toBe('$1M-$10M');
    expect(revenueRange(9_999_999)).toBe('$1M-$10M');
    expect(revenueRange(10_000_000)).toBe('$10M-$50M');
    expect(revenueRange(999_000_000)).toBe('$500M-$1B');
    expect(revenueRange(1e9)).toBe('$1B-$10B');
    expect(revenueRange(2.5e10)).toBe('$10B+');
  });

  it('have one tier per employee range', () => {
    expect(SIZE_TIERS.map((t) => t.range)).toEqual([...EMPLOYEE_RANGES]);
    expect(REVENUE_RANGES).toHaveLength(8);
  });
});

describe('titles', () => {
  it('cover every level and function in English, and only known levels and functions elsewhere', () => {
    for (const level of TITLE_LEVELS) {
      const fns = new Set(TITLES.en[level].map((t) => t.fn));
      if (level !== 'C-Level') for (const fn of TITLE_FUNCTIONS.filter((f) => f !== 'Executive')) expect(fns.has(fn), `${level} ${fn}`).toBe(true);
    }
    for (const byLevel of Object.values(TITLES)) {
      for (const [level, titles] of Object.entries(byLevel)) {
        for (const t of titles) {
          expect(t.level).toBe(level);
          expect(TITLE_FUNCTIONS).toContain(t.fn);
        }
      }
    }
  });
});

describe('signals', () => {
  it('uses lower-case, unique topics', () => {
    expect(new Set(INTENT_TOPICS).size).toBe(INTENT_TOPICS.length);
    for (const t of INTENT_TOPICS) expect(t).toBe(t.toLowerCase());
    for (const topics of Object.values(INDUSTRY_TOPICS)) for (const t of topics) expect(INTENT_TOPICS).toContain(t);
  });

  it('dates observations 1–90 days before 2026-11-01', () => {
    expect(new Date(DATA_NOW).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    for (let i = 0; i < 2000; i++) {
      const d = observedAt(rng);
      expect(d >= '2026-08-03' && d <= '2026-10-31', d).toBe(true);
    }
  });
});

describe('asciiSlug', () => {
  it('turns names into email- and URL-safe ASCII', () => {
    expect(asciiSlug('Müller', { umlautE: true })).toBe('mueller');
    expect(asciiSlug('Müller')).toBe('muller');
    expect(asciiSlug('José')).toBe('jose');
    expect(asciiSlug("O'Brien")).toBe('obrien');
    expect(asciiSlug('van den Berg')).toBe('vandenberg');
    expect(asciiSlug('van den Berg', { separator: '-' })).toBe('van-den-berg');
    expect(asciiSlug('Weiß', { umlautE: true })).toBe('weiss');
    expect(asciiSlug('Søren Åberg', { separator: '-' })).toBe('soren-aberg');
    expect(asciiSlug('Yılmaz')).toBe('yilmaz');
    expect(asciiSlug('Wiśniewski')).toBe('wisniewski');
    expect(asciiSlug('Ji-woo')).toBe('jiwoo');
  });

  it('gives a non-empty slug for every name in the lists', () => {
    for (const set of Object.values(NAMES)) {
      for (const name of [...set.female, ...set.male, ...set.last]) expect(asciiSlug(name, { umlautE: set.umlautE }), name).toMatch(/^[a-z]+$/);
    }
  });
});
