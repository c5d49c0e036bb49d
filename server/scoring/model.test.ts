import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  activityWeight,
  BUYING_STAGE_THRESHOLDS,
  BUYING_STAGES,
  buyingStage,
  CONTACT_GRADE_THRESHOLDS,
  CONTACT_GRADES,
  CONTACT_INTENT_HALF_LIFE_DAYS,
  CONTACT_INTENT_SATURATION,
  CONTACT_INTENT_WINDOW_DAYS,
  CONTACT_PROFILE_WEIGHTS,
  type CompanyProfileInput,
  companyScores,
  contactGrade,
  contactIntentScore,
  contactProfileFit,
  contactProfileScore,
  EMPLOYEE_RANGES,
  ENGAGEMENT_WEIGHTS,
  type Engagement,
  explainContactIntent,
  explainContactProfile,
  explainIntent,
  explainProfile,
  INTENT_HALF_LIFE_DAYS,
  INTENT_SATURATION,
  INTENT_WINDOW_DAYS,
  type IntentSignal,
  intentScore,
  PROFILE_FIT_THRESHOLDS,
  PROFILE_FITS,
  PROFILE_WEIGHTS,
  parseObservedAt,
  personScores,
  profileFit,
  profileScore,
  REVENUE_RANGES,
  recencyWeight,
  type ScoringProduct,
  TITLE_LEVELS,
  type TitleClassification,
} from './model.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-05-01T00:00:00Z');
const at = (ageDays: number, now = NOW) => new Date(now.getTime() - ageDays * DAY).toISOString();

// ---------------------------------------------------------------------------------------------------
// The worked example of README.md: every number below appears there.

const example = {
  now: NOW,
  product: {
    name: 'marketing-automation',
    display_name: 'Marketing Automation',
    icp: {
      industries: ['Software', 'Internet'],
      employee_ranges: ['200-499', '500-999'],
      revenue_ranges: ['$50M-$100M'],
      regions: ['North America'],
    },
    intent_topics: ['Marketing Automation', 'Lead Scoring', 'Email Marketing'],
    persona: { levels: ['C-Level'], functions: ['Marketing'] },
  } satisfies ScoringProduct,
  company: { industry: 'Software', employee_range: '1,000-4,999', revenue_range: '$50M-$100M', region: 'Europe', country_iso_code: 'DE' },
  signals: [
    { topic: 'marketing automation', strength: 80, observed_at: '2026-05-01' },
    { topic: 'Lead Scoring', strength: 60, observed_at: '2026-04-01' },
    { topic: 'CRM', strength: 70, observed_at: '2026-04-21' },
  ],
  title: { titleLevel: 'VP', titleFunction: 'Marketing' },
  engagement: [
    { activity: 'form_fill', count: 1, observed_at: '2026-05-01' },
    { activity: 'email_open', count: 4, observed_at: '2026-04-17' },
    { activity: 'page_view', count: 6, observed_at: '2026-04-03' },
  ],
  pageViews: [
    { day: '2026-04-24', path: '/pricing', page_views: 2 },
    { day: '2026-05-01', path: '/blog/lead-scoring-guide?utm_source=news', page_views: 4 },
  ],
};

describe('worked example (README.md)', () => {
  it('company intent: 80·1 + 60·0.5 = 110 points → 100·(1−e^−1.1) = 66.7 → 67, Decision', () => {
    const b = explainIntent(example.signals, example.product, example.now);
    expect(b.contributions.map(({ topic, ageDays, weight, points }) => ({ topic, ageDays, weight, points }))).toEqual([
      { topic: 'marketing automation', ageDays: 0, weight: 1, points: 80 },
      { topic: 'Lead Scoring', ageDays: 30, weight: 0.5, points: 30 },
    ]); // CRM is not a product topic
    expect(b.points).toBe(110);
    expect(100 * (1 - Math.exp(-110 / INTENT_SATURATION))).toBeCloseTo(66.71, 2);
    expect(b.score).toBe(67);
    expect(buyingStage(b.score)).toBe('Decision');
  });

  it('first-party intent: /pricing 10·2·0.5 + blog 1·4·1 = 14 more points → 124 → 100·(1−e^−1.24) = 71.1 → 71, Decision', () => {
    const b = explainIntent(example.signals, example.product, example.now, example.pageViews);
    expect(b.first_party.map(({ path, high_intent, ageDays, weight, points }) => ({ path, high_intent, ageDays, weight, points }))).toEqual([
      { path: '/pricing', high_intent: true, ageDays: 7, weight: 0.5, points: 10 },
      { path: '/blog/lead-scoring-guide?utm_source=news', high_intent: false, ageDays: 0, weight: 1, points: 4 },
    ]);
    expect(b.points).toBe(124);
    expect(100 * (1 - Math.exp(-124 / INTENT_SATURATION))).toBeCloseTo(71.06, 2);
    expect(b.score).toBe(71);
    expect(buyingStage(b.score)).toBe('Decision');
  });

  it('an account that read the pricing page this week scores higher than one that did not', () => {
    const { product, now } = example;
    const none = intentScore([], product, now);
    const blogOnly = intentScore([], product, now, [{ day: '2026-04-29', path: '/blog', page_views: 1 }]);
    const pricing = intentScore([], product, now, [{ day: '2026-04-29', path: '/en/pricing', page_views: 1 }]);
    expect(none).toBe(0);
    expect(pricing).toBeGreaterThan(blogOnly);
    expect(pricing).toBeGreaterThan(none);
    expect(intentScore(example.signals, product, now, [{ day: '2026-04-29', path: '/request-demo', page_views: 1 }])).toBeGreaterThan(
      intentScore(example.signals, product, now),
    );
    // Older than the 30-day window, or a reload loop past the cap, adds nothing more.
    expect(intentScore([], product, now, [{ day: '2026-03-01', path: '/pricing', page_views: 5 }])).toBe(0);
    expect(intentScore([], product, now, [{ day: '2026-05-01', path: '/pricing', page_views: 1000 }])).toBe(
      intentScore([], product, now, [{ day: '2026-05-01', path: '/pricing', page_views: 20 }]),
    );
  });

  it('company profile: 40 + 12.5 + 20 + 0 = 72.5 → 73, Strong', () => {
    expect(explainProfile(example.company, example.product)).toEqual({
      industry: 40,
      employee_range: 12.5,
      revenue_range: 20,
      region: 0,
      points: 72.5,
      score: 73,
    });
    expect(profileFit(73)).toBe('Strong');
  });

  it('contact profile: VP vs C-Level 25 + Marketing 50 = 75, Strong', () => {
    expect(explainContactProfile(example.title, example.product.persona)).toEqual({ level: 25, function: 50, points: 75, score: 75 });
    expect(contactProfileFit(75)).toBe('Strong');
  });

  it('contact intent: 25 + 2 + 3 = 30 points → 100·(1−e^−0.75) = 52.8 → 53, B', () => {
    const b = explainContactIntent(example.engagement, example.now);
    expect(b.contributions.map(({ activity, ageDays, weight, points }) => ({ activity, ageDays, weight, points }))).toEqual([
      { activity: 'form_fill', ageDays: 0, weight: 1, points: 25 },
      { activity: 'email_open', ageDays: 14, weight: 0.5, points: 2 },
      { activity: 'page_view', ageDays: 28, weight: 0.25, points: 3 },
    ]);
    expect(b.points).toBe(30);
    expect(100 * (1 - Math.exp(-30 / CONTACT_INTENT_SATURATION))).toBeCloseTo(52.76, 2);
    expect(b.score).toBe(53);
    expect(contactGrade(53)).toBe('B');
  });

  it("remembers a frozen company's profile score per ICP, and computes anything not frozen each time", () => {
    const { company, product, now } = example;
    const scoreOf = (c: typeof company, p: typeof product) => companyScores({ company: c, signals: [], products: [p], now })[0]!.profile_score;
    const frozen = Object.freeze({ ...company });
    const icp = Object.freeze({ ...product.icp });
    expect(scoreOf(frozen, { ...product, icp })).toBe(profileScore(company, product));
    expect(scoreOf(frozen, { ...product, icp })).toBe(profileScore(company, product));
    // Another ICP (a changed product is a new object) is scored anew for the same company.
    const none = Object.freeze({ industries: [], employee_ranges: [], revenue_ranges: [], regions: ['Antarctica'] });
    expect(scoreOf(frozen, { ...product, icp: none })).toBe(profileScore(company, { ...product, icp: none }));
    // A mutable company changed between calls is never answered from memory.
    const mutable = { ...company };
    const first = scoreOf(mutable, product);
    mutable.industry = 'Nothing anyone wants';
    expect(scoreOf(mutable, product)).toBe(profileScore(mutable, product));
    expect(profileScore(mutable, product)).not.toBe(first);
  });

  it('composers return the spec shapes with those numbers', () => {
    const { company, signals, product, now, title, engagement, pageViews } = example;
    expect(companyScores({ company, signals, products: [product], hotAccount: { products: [] }, now })[0]?.intent_score).toBe(67);
    expect(companyScores({ company, signals, pageViews, products: [product], hotAccount: { products: [] }, now })).toStrictEqual([
      {
        is_svcqa: true,
        product: 'marketing-automation',
        product_display_name: 'Marketing Automation',
        intent_score: 71,
        buying_stage: 'Decision',
        profile_score: 73,
        profile_fit: 'Strong',
      },
    ]);
    expect(personScores({ company, signals, pageViews, products: [product], title, engagement, now })).toStrictEqual([
      {
        product: 'marketing-automation',
        company_intent_score: 71,
        company_buying_stage: 'Decision',
        company_profile_score: 73,
        company_profile_fit: 'Strong',
        contact_intent_score: 53,
        contact_grade: 'B',
        contact_profile_score: 75,
        contact_profile_fit: 'Strong',
      },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Arbitraries

const TOPICS = ['Marketing Automation', 'Lead Scoring', 'Email Marketing', 'CRM', 'Data Warehousing'];
const INDUSTRIES = ['Software', 'Internet', 'Retail', 'Manufacturing', ''];
const REGIONS = ['North America', 'Europe', 'APAC', ''];
const ISO = ['US', 'DE', 'JP', ''];
const FUNCTIONS = ['Marketing', 'Sales', 'IT', 'Finance', ''];
const ACTIVITIES = [...Object.keys(ENGAGEMENT_WEIGHTS), 'Form Fill', 'EMAIL-CLICK', 'chat', ''];

const anyCase = (values: readonly string[]) =>
  fc
    .tuple(fc.constantFrom(...values), fc.constantFrom('same', 'lower', 'upper') as fc.Arbitrary<string>)
    .map(([v, c]) => (c === 'lower' ? v.toLowerCase() : c === 'upper' ? v.toUpperCase() : v));

// fc.double spreads over the float encoding (most draws would be tiny): draw integers and scale instead.
/** Age in days, −5 … 200, in steps of one hour. */
const daysArb = (min: number, max: number) => fc.integer({ min: min * 24, max: max * 24 }).map((h) => h / 24);
const ageArb = daysArb(-5, 120);
/** Strength 0 … 100 in steps of 0.1. */
const strengthArb = fc.integer({ min: 0, max: 1000 }).map((x) => x / 10);
const signalArb: fc.Arbitrary<IntentSignal> = fc.record({
  topic: anyCase(TOPICS),
  strength: strengthArb,
  observed_at: ageArb.map((a) => at(a)),
});
const engagementArb: fc.Arbitrary<Engagement> = fc.record({
  activity: fc.constantFrom(...ACTIVITIES),
  count: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 500 })),
  observed_at: ageArb.map((a) => at(a)),
});
const productArb: fc.Arbitrary<ScoringProduct> = fc.record({
  name: fc.constantFrom('a', 'b', 'c'),
  display_name: fc.constantFrom('A', 'B'),
  icp: fc.record({
    industries: fc.subarray(INDUSTRIES.filter(Boolean)),
    employee_ranges: fc.subarray([...EMPLOYEE_RANGES, '7-77']),
    revenue_ranges: fc.subarray([...REVENUE_RANGES, 'lots']),
    regions: fc.subarray([...REGIONS.filter(Boolean), 'US']),
  }),
  intent_topics: fc.subarray(TOPICS.slice(0, 3)),
  persona: fc.record({ levels: fc.subarray([...TITLE_LEVELS]), functions: fc.subarray(FUNCTIONS.filter(Boolean)) }),
});
const companyArb: fc.Arbitrary<CompanyProfileInput> = fc.record({
  industry: anyCase(INDUSTRIES),
  employee_range: fc.constantFrom(...EMPLOYEE_RANGES, '7-77', ''),
  revenue_range: fc.constantFrom(...REVENUE_RANGES, 'lots', ''),
  region: fc.constantFrom(...REGIONS),
  country_iso_code: fc.constantFrom(...ISO),
});
const titleArb: fc.Arbitrary<TitleClassification> = fc.record({
  titleLevel: fc.constantFrom(...TITLE_LEVELS, 'vice president', 'Unknown', ''),
  titleFunction: anyCase(FUNCTIONS),
});
const nowArb = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true });

const isScore = (x: number) => Number.isInteger(x) && x >= 0 && x <= 100 && !Object.is(x, -0);

// ---------------------------------------------------------------------------------------------------
// Properties

describe('bounds and labels', () => {
  it('every score is an integer 0–100 and every label is from its enum', () => {
    fc.assert(
      fc.property(
        companyArb,
        fc.array(signalArb, { maxLength: 30 }),
        fc.array(productArb, { maxLength: 4 }),
        titleArb,
        fc.array(engagementArb, { maxLength: 30 }),
        fc.option(fc.record({ products: fc.subarray(['a', 'b', 'z']) })),
        fc.boolean(),
        (company, signals, products, title, engagement, hotAccount, known) => {
          for (const s of companyScores({ company, signals, products, hotAccount, now: NOW })) {
            expect(isScore(s.intent_score) && isScore(s.profile_score)).toBe(true);
            expect(BUYING_STAGES).toContain(s.buying_stage);
            expect(PROFILE_FITS).toContain(s.profile_fit);
            expect(typeof s.is_svcqa).toBe('boolean');
          }
          const people = personScores({ company: known ? company : null, signals, products, title, engagement, now: NOW });
          expect(people).toHaveLength(products.length);
          for (const s of people) {
            for (const n of [s.company_intent_score, s.company_profile_score, s.contact_intent_score, s.contact_profile_score]) {
              expect(isScore(n)).toBe(true);
            }
            expect(BUYING_STAGES).toContain(s.company_buying_stage);
            expect(PROFILE_FITS).toContain(s.company_profile_fit);
            expect(PROFILE_FITS).toContain(s.contact_profile_fit);
            expect(CONTACT_GRADES).toContain(s.contact_grade);
          }
        },
      ),
    );
  });

  it('labels are total over any number and ordered like the scores', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer({ min: -5, max: 105 })), fc.oneof(fc.double(), fc.integer({ min: -5, max: 105 })), (a, b) => {
        expect(BUYING_STAGES).toContain(buyingStage(a));
        expect(PROFILE_FITS).toContain(profileFit(a));
        expect(CONTACT_GRADES).toContain(contactGrade(a));
        if (a <= b) {
          expect(BUYING_STAGES.indexOf(buyingStage(a))).toBeLessThanOrEqual(BUYING_STAGES.indexOf(buyingStage(b)));
          expect(PROFILE_FITS.indexOf(profileFit(a))).toBeLessThanOrEqual(PROFILE_FITS.indexOf(profileFit(b)));
          expect(CONTACT_GRADES.indexOf(contactGrade(a))).toBeLessThanOrEqual(CONTACT_GRADES.indexOf(contactGrade(b)));
        }
      }),
    );
  });

  it('saturates at 100 and never beyond', () => {
    const product = { intent_topics: [] };
    const many = Array.from({ length: 1000 }, () => ({ topic: 'x', strength: 100, observed_at: at(0) }));
    expect(intentScore(many, product, NOW)).toBe(100);
    expect(contactIntentScore([{ activity: 'meeting', count: 1e9, observed_at: at(0) }], NOW)).toBe(100);
  });
});

describe('determinism', () => {
  it('same inputs give equal outputs, whatever the order of signals and engagement', () => {
    fc.assert(
      fc.property(
        companyArb,
        fc.array(signalArb, { maxLength: 25 }),
        fc.array(productArb, { minLength: 1, maxLength: 3 }),
        titleArb,
        fc.array(engagementArb, { maxLength: 25 }),
        nowArb,
        fc.integer(),
        (company, signals, products, title, engagement, now, seed) => {
          const shuffle = <T>(xs: T[]) =>
            xs
              .map((x, i) => [((i + 1) * (seed | 1)) % 9973, x] as const)
              .sort((p, q) => p[0] - q[0])
              .map((p) => p[1]);
          const run = (s: IntentSignal[], e: Engagement[]) => [
            companyScores({ company, signals: s, products, now: new Date(now) }),
            personScores({ company, signals: s, products, title, engagement: e, now: new Date(now) }),
          ];
          const first = run(signals, engagement);
          expect(run(signals, engagement)).toStrictEqual(first);
          expect(run(shuffle(signals), shuffle(engagement))).toStrictEqual(first);
          expect(run([...signals].reverse(), [...engagement].reverse())).toStrictEqual(first);
        },
      ),
    );
  });

  it('does not mutate its inputs', () => {
    const input = structuredClone(example);
    companyScores({ ...input, products: [input.product], hotAccount: { products: ['x'] } });
    personScores({ ...input, products: [input.product] });
    expect(input).toStrictEqual(example);
  });
});

describe('monotonicity', () => {
  it('adding a signal never lowers the intent score', () => {
    fc.assert(
      fc.property(fc.array(signalArb, { maxLength: 6 }), signalArb, productArb, (signals, extra, product) => {
        expect(intentScore([...signals, extra], product, NOW)).toBeGreaterThanOrEqual(intentScore(signals, product, NOW));
      }),
    );
  });

  it('raising a strength never lowers the intent score', () => {
    fc.assert(
      fc.property(fc.array(signalArb, { minLength: 1, maxLength: 6 }), fc.nat(), strengthArb, productArb, (signals, i, raise, product) => {
        const j = i % signals.length;
        const raised = signals.map((s, k) => (k === j ? { ...s, strength: Math.min(100, s.strength + raise) } : s));
        expect(intentScore(raised, product, NOW)).toBeGreaterThanOrEqual(intentScore(signals, product, NOW));
      }),
    );
  });

  it('matching one more ICP dimension never lowers the profile score', () => {
    fc.assert(
      fc.property(companyArb, productArb, fc.nat(), (company, product, i) => {
        const before = profileScore(company, product);
        const { industries, employee_ranges, revenue_ranges, regions } = product.icp;
        const pick = (xs: string[]) => xs[i % xs.length];
        const variants: CompanyProfileInput[] = [];
        if (industries.length) variants.push({ ...company, industry: pick(industries) });
        if (employee_ranges.length) variants.push({ ...company, employee_range: pick(employee_ranges) });
        if (revenue_ranges.length) variants.push({ ...company, revenue_range: pick(revenue_ranges) });
        if (regions.length) variants.push({ ...company, region: pick(regions) });
        for (const v of variants) expect(profileScore(v, product)).toBeGreaterThanOrEqual(before);
      }),
    );
  });

  it('more engagement (an extra row or a higher count) never lowers the contact intent score', () => {
    fc.assert(
      fc.property(fc.array(engagementArb, { minLength: 1, maxLength: 6 }), engagementArb, fc.nat(), fc.nat({ max: 100 }), (rows, extra, i, more) => {
        const before = contactIntentScore(rows, NOW);
        expect(contactIntentScore([...rows, extra], NOW)).toBeGreaterThanOrEqual(before);
        const j = i % rows.length;
        const raised = rows.map((r, k) => (k === j ? { ...r, count: r.count + more } : r));
        expect(contactIntentScore(raised, NOW)).toBeGreaterThanOrEqual(before);
      }),
    );
  });
});

describe('recency', () => {
  it('the same signal observed earlier scores lower or equal (ages ≥ 0)', () => {
    fc.assert(
      fc.property(fc.array(signalArb, { maxLength: 4 }), signalArb, daysArb(0, 200), daysArb(0, 200), (others, s, a, b) => {
        const [young, old] = a <= b ? [a, b] : [b, a];
        const product = { intent_topics: [] };
        expect(intentScore([...others, { ...s, observed_at: at(old) }], product, NOW)).toBeLessThanOrEqual(
          intentScore([...others, { ...s, observed_at: at(young) }], product, NOW),
        );
      }),
    );
  });

  it('the same engagement observed earlier scores lower or equal (ages ≥ 0)', () => {
    fc.assert(
      fc.property(fc.array(engagementArb, { maxLength: 4 }), engagementArb, daysArb(0, 200), daysArb(0, 200), (others, e, a, b) => {
        const [young, old] = a <= b ? [a, b] : [b, a];
        expect(contactIntentScore([...others, { ...e, observed_at: at(old) }], NOW)).toBeLessThanOrEqual(
          contactIntentScore([...others, { ...e, observed_at: at(young) }], NOW),
        );
      }),
    );
  });

  it('decays by half per half-life, keeps the window edge, drops the future and beyond the window', () => {
    expect(recencyWeight(at(0), NOW, INTENT_HALF_LIFE_DAYS, INTENT_WINDOW_DAYS)).toBe(1);
    expect(recencyWeight(at(INTENT_HALF_LIFE_DAYS), NOW, INTENT_HALF_LIFE_DAYS, INTENT_WINDOW_DAYS)).toBe(0.5);
    expect(recencyWeight(at(INTENT_WINDOW_DAYS), NOW, INTENT_HALF_LIFE_DAYS, INTENT_WINDOW_DAYS)).toBe(0.125);
    const justOutside = new Date(NOW.getTime() - INTENT_WINDOW_DAYS * DAY - 1).toISOString();
    expect(recencyWeight(justOutside, NOW, INTENT_HALF_LIFE_DAYS, INTENT_WINDOW_DAYS)).toBe(0);
    const future = new Date(NOW.getTime() + 1).toISOString();
    expect(recencyWeight(future, NOW, INTENT_HALF_LIFE_DAYS, INTENT_WINDOW_DAYS)).toBe(0);
    const product = { intent_topics: ['x'] };
    // 100 · 0.125 = 12.5 points → 100·(1−e^−0.125) = 11.75 → 12
    expect(intentScore([{ topic: 'x', strength: 100, observed_at: at(INTENT_WINDOW_DAYS) }], product, NOW)).toBe(12);
    expect(intentScore([{ topic: 'x', strength: 100, observed_at: justOutside }], product, NOW)).toBe(0);
    expect(intentScore([{ topic: 'x', strength: 100, observed_at: future }], product, NOW)).toBe(0);
    expect(recencyWeight(at(CONTACT_INTENT_HALF_LIFE_DAYS), NOW, CONTACT_INTENT_HALF_LIFE_DAYS, CONTACT_INTENT_WINDOW_DAYS)).toBe(0.5);
    expect(contactIntentScore([{ activity: 'meeting', count: 1, observed_at: at(CONTACT_INTENT_WINDOW_DAYS + 1) }], NOW)).toBe(0);
  });

  it('reads dates as UTC and ignores unreadable ones', () => {
    expect(parseObservedAt('2026-04-01')).toBe(Date.UTC(2026, 3, 1));
    expect(parseObservedAt('2026-04-01T12:30')).toBe(Date.UTC(2026, 3, 1, 12, 30));
    expect(parseObservedAt('2026-04-01 12:30:15.5')).toBe(Date.UTC(2026, 3, 1, 12, 30, 15, 500));
    expect(parseObservedAt('2026-04-01T12:00:00+02:00')).toBe(Date.UTC(2026, 3, 1, 10));
    expect(parseObservedAt('2026-04-01T12:00:00-0130')).toBe(Date.UTC(2026, 3, 1, 13, 30));
    expect(parseObservedAt(' 2026-04-01t12:00:00z ')).toBe(Date.UTC(2026, 3, 1, 12));
    for (const bad of ['', 'yesterday', '2026-02-30', '2026-13-01', '01/04/2026']) expect(parseObservedAt(bad)).toBeNaN();
    expect(intentScore([{ topic: 'x', strength: 100, observed_at: 'yesterday' }], { intent_topics: [] }, NOW)).toBe(0);
  });

  it('rejects an invalid now', () => {
    expect(() => intentScore([], { intent_topics: [] }, new Date('nope'))).toThrow(RangeError);
    expect(() => companyScores({ company: {}, signals: [], products: [], now: new Date(Number.NaN) })).toThrow(RangeError);
  });
});

describe('thresholds at their exact boundaries', () => {
  it('buying stage', () => {
    const t = BUYING_STAGE_THRESHOLDS;
    expect(
      [0, t.Awareness - 1, t.Awareness, t.Consideration - 1, t.Consideration, t.Decision - 1, t.Decision, t.Purchase - 1, t.Purchase, 100].map(buyingStage),
    ).toEqual(['Target', 'Target', 'Awareness', 'Awareness', 'Consideration', 'Consideration', 'Decision', 'Decision', 'Purchase', 'Purchase']);
    expect(t).toEqual({ Awareness: 20, Consideration: 40, Decision: 60, Purchase: 80 });
  });

  it('profile fit and contact profile fit', () => {
    const t = PROFILE_FIT_THRESHOLDS;
    for (const fit of [profileFit, contactProfileFit]) {
      expect([0, t.Moderate - 1, t.Moderate, t.Strong - 1, t.Strong, 100].map(fit)).toEqual(['Weak', 'Weak', 'Moderate', 'Moderate', 'Strong', 'Strong']);
    }
    expect(t).toEqual({ Strong: 70, Moderate: 40 });
  });

  it('contact grade', () => {
    const t = CONTACT_GRADE_THRESHOLDS;
    expect([0, t.C - 1, t.C, t.B - 1, t.B, t.A - 1, t.A, 100].map(contactGrade)).toEqual(['D', 'D', 'C', 'C', 'B', 'B', 'A', 'A']);
    expect(t).toEqual({ A: 75, B: 50, C: 25 });
  });

  it('weights add up to 100', () => {
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(Object.values(PROFILE_WEIGHTS))).toBe(100);
    expect(sum(Object.values(CONTACT_PROFILE_WEIGHTS))).toBe(100);
  });
});

// ---------------------------------------------------------------------------------------------------
// Examples of each rule

describe('intent score', () => {
  it('matches topics case- and space-insensitively and ignores other topics', () => {
    const product = { intent_topics: ['Lead Scoring'] };
    const s = (topic: string) => [{ topic, strength: 50, observed_at: '2026-05-01' }];
    expect(intentScore(s('LEAD SCORING'), product, NOW)).toBe(intentScore(s('lead  scoring'), product, NOW));
    expect(intentScore(s('lead scoring'), product, NOW)).toBe(39); // 100·(1−e^−0.5)
    expect(intentScore(s('CRM'), product, NOW)).toBe(0);
  });

  it('counts every topic when the product lists none', () => {
    expect(intentScore([{ topic: 'anything', strength: 50, observed_at: '2026-05-01' }], { intent_topics: [] }, NOW)).toBe(39);
  });

  it('no signals → 0 → Target', () => {
    expect(intentScore([], example.product, NOW)).toBe(0);
    expect(buyingStage(0)).toBe('Target');
  });
});

describe('profile score', () => {
  const icp = (over: Partial<ScoringProduct['icp']>) => ({ icp: { industries: [], employee_ranges: [], revenue_ranges: [], regions: [], ...over } });

  it('an empty ICP is a full match, even for an unknown company', () => {
    expect(profileScore({}, icp({}))).toBe(100);
    expect(profileScore({ industry: 'x' }, icp({}))).toBe(100);
  });

  it('blank or missing company fields match nothing a non-empty ICP asks for', () => {
    expect(explainProfile({ industry: '' }, icp({ industries: ['Software'] })).industry).toBe(0);
    expect(explainProfile({}, icp({ employee_ranges: ['1-9'] })).employee_range).toBe(0);
  });

  it('gives half credit one step away on the ordered ranges and none two steps away', () => {
    const p = icp({ employee_ranges: ['200-499'], revenue_ranges: ['$1B-$10B'] });
    expect(explainProfile({ employee_range: '50-199' }, p).employee_range).toBe(12.5);
    expect(explainProfile({ employee_range: '500-999' }, p).employee_range).toBe(12.5);
    expect(explainProfile({ employee_range: '10-49' }, p).employee_range).toBe(0);
    expect(explainProfile({ employee_range: '1000 - 4999' }, icp({ employee_ranges: ['1,000-4,999'] })).employee_range).toBe(25);
    expect(explainProfile({ revenue_range: '$10B+' }, p).revenue_range).toBe(10);
    expect(explainProfile({ revenue_range: '$500m-$1b' }, p).revenue_range).toBe(10);
    expect(explainProfile({ revenue_range: '$1B-$10B' }, p).revenue_range).toBe(20);
  });

  it('matches unknown range spellings exactly only', () => {
    expect(explainProfile({ employee_range: '7-77' }, icp({ employee_ranges: ['7-77'] })).employee_range).toBe(25);
    expect(explainProfile({ employee_range: '7-77' }, icp({ employee_ranges: ['1-9', '10-49'] })).employee_range).toBe(0);
    expect(explainProfile({ employee_range: '1-9' }, icp({ employee_ranges: ['7-77'] })).employee_range).toBe(0);
  });

  it('matches the region dimension on region or country ISO code', () => {
    const p = icp({ regions: ['north america', 'DE'] });
    expect(explainProfile({ region: 'North America' }, p).region).toBe(15);
    expect(explainProfile({ region: 'Europe', country_iso_code: 'de' }, p).region).toBe(15);
    expect(explainProfile({ region: 'Europe', country_iso_code: 'FR' }, p).region).toBe(0);
  });

  it('a company matching every dimension scores 100', () => {
    fc.assert(
      fc.property(productArb, fc.nat(), (product, i) => {
        const pick = (xs: string[]) => (xs.length ? xs[i % xs.length] : '');
        const { icp } = product;
        const c = {
          industry: pick(icp.industries),
          employee_range: pick(icp.employee_ranges),
          revenue_range: pick(icp.revenue_ranges),
          region: pick(icp.regions),
        };
        expect(profileScore(c, product)).toBe(100);
      }),
    );
  });
});

describe('contact profile score', () => {
  const persona = { levels: ['VP'], functions: ['Marketing'] };

  it('gives full, half or no level credit by distance in the ranking', () => {
    expect(contactProfileScore({ titleLevel: 'VP', titleFunction: 'Marketing' }, persona)).toBe(100);
    expect(contactProfileScore({ titleLevel: 'C-Level', titleFunction: 'Marketing' }, persona)).toBe(75);
    expect(contactProfileScore({ titleLevel: 'Director', titleFunction: 'Marketing' }, persona)).toBe(75);
    expect(contactProfileScore({ titleLevel: 'Manager', titleFunction: 'Marketing' }, persona)).toBe(50);
    expect(contactProfileScore({ titleLevel: 'Staff', titleFunction: 'Sales' }, persona)).toBe(0);
    expect(contactProfileScore({ titleLevel: 'Director', titleFunction: 'Marketing' }, { levels: ['Manager', 'VP'], functions: [] })).toBe(75);
  });

  it('accepts level spellings and any case', () => {
    expect(contactProfileScore({ titleLevel: 'Vice President', titleFunction: 'marketing' }, persona)).toBe(100);
    expect(contactProfileScore({ titleLevel: 'c level', titleFunction: 'MARKETING' }, { levels: ['C-Level'], functions: ['Marketing'] })).toBe(100);
    expect(contactProfileScore({ titleLevel: 'Unknown', titleFunction: '' }, persona)).toBe(0);
  });

  it('an empty persona list is a full match; a missing title matches only empty lists', () => {
    expect(contactProfileScore(null, { levels: [], functions: [] })).toBe(100);
    expect(contactProfileScore(null, persona)).toBe(0);
    expect(contactProfileScore({ titleLevel: '', titleFunction: 'Marketing' }, { levels: ['VP'], functions: [] })).toBe(50);
  });
});

describe('contact intent score', () => {
  it('orders the activity weights meeting > form_fill > webinar > email_click > page_view > email_open', () => {
    const order = ['meeting', 'form_fill', 'webinar', 'email_click', 'page_view', 'email_open'];
    const w = order.map(activityWeight);
    expect([...w].sort((a, b) => b - a)).toEqual(w);
    expect(new Set(w).size).toBe(order.length);
    expect(activityWeight('Form Fill')).toBe(ENGAGEMENT_WEIGHTS.form_fill);
    expect(activityWeight('email-click')).toBe(ENGAGEMENT_WEIGHTS.email_click);
    expect(activityWeight('chat')).toBe(0);
    expect(activityWeight('constructor')).toBe(0);
  });

  it('no engagement → 0 → D; one meeting today → 63 → B', () => {
    expect(contactIntentScore([], NOW)).toBe(0);
    expect(contactGrade(0)).toBe('D');
    expect(contactIntentScore([{ activity: 'meeting', count: 1, observed_at: '2026-05-01' }], NOW)).toBe(63); // 100·(1−e^−1)
    expect(contactIntentScore([{ activity: 'meeting', count: 0, observed_at: '2026-05-01' }], NOW)).toBe(0);
  });
});

describe('composers', () => {
  const products: ScoringProduct[] = [example.product, { ...example.product, name: 'analytics', display_name: 'Analytics' }];

  it('sets is_svcqa per product from the hot account', () => {
    const flags = (hotAccount?: { products: string[] } | null) =>
      companyScores({ company: example.company, signals: [], products, hotAccount, now: NOW }).map((s) => s.is_svcqa);
    expect(flags()).toEqual([false, false]);
    expect(flags(null)).toEqual([false, false]);
    expect(flags({ products: [] })).toEqual([true, true]);
    expect(flags({ products: ['analytics'] })).toEqual([false, true]);
    expect(flags({ products: ['other'] })).toEqual([false, false]);
  });

  it('returns one element per product in product order with exactly the spec keys', () => {
    const c = companyScores({ company: example.company, signals: example.signals, products, now: NOW });
    expect(c.map((s) => s.product)).toEqual(['marketing-automation', 'analytics']);
    expect(Object.keys(c[0])).toEqual(['is_svcqa', 'product', 'product_display_name', 'intent_score', 'buying_stage', 'profile_score', 'profile_fit']);
    const p = personScores({ ...example, products });
    expect(Object.keys(p[0])).toEqual([
      'product',
      'company_intent_score',
      'company_buying_stage',
      'company_profile_score',
      'company_profile_fit',
      'contact_intent_score',
      'contact_grade',
      'contact_profile_score',
      'contact_profile_fit',
    ]);
    expect(companyScores({ company: {}, signals: [], products: [], now: NOW })).toEqual([]);
  });

  it('without a company: company scores 0 / Target / 0 / Weak, contact scores still computed', () => {
    expect(personScores({ ...example, company: null, products: [example.product] })).toStrictEqual([
      {
        product: 'marketing-automation',
        company_intent_score: 0,
        company_buying_stage: 'Target',
        company_profile_score: 0,
        company_profile_fit: 'Weak',
        contact_intent_score: 53,
        contact_grade: 'B',
        contact_profile_score: 75,
        contact_profile_fit: 'Strong',
      },
    ]);
  });
});
