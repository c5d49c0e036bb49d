import { describe, expect, it, vi } from 'vitest';
import { matched } from '../test/fixtures.ts';
import { flatten } from './datalayer.ts';
import { GA4_NAME_MAX, GA4_PROPERTIES_MAX, GA4_VALUE_MAX, ga4Value, type Properties, tell, tellAnswer } from './integrations.ts';
import { t as chunkTellAnswer } from './integrations-chunk.ts';
import type { SvcData, SvcScore } from './types.ts';

/**
 * GA4's collection limits as Google documents them (support.google.com/analytics/answer/9267744, "Event
 * collection limits"): "User properties: 25 per property" ("Analytics doesn't process the 26th user
 * property"), "Length of user property name: 24 characters", "Length of user property value: 36
 * characters"; a name is letters, digits and underscores, a letter first, no reserved prefix. Written out
 * here, not read from the module: the defaults are checked against Google's numbers, not against themselves.
 */
const DOCUMENTED = { properties: 25, name: 24, value: 36 } as const;

/** What `tell` gives GA4 (user properties) and Segment (group traits) for an answer, with the tag's `fields` setting. */
function accountProperties(data: SvcData = matched(), fields?: string[]): { ga4: Properties; segment: Properties } {
  const got = { ga4: {}, segment: {} } as { ga4: Properties; segment: Properties };
  const page = {
    gtag: (_set: unknown, _name: unknown, ga4: Properties) => (got.ga4 = ga4),
    analytics: { group: (_id: string, traits: Properties) => (got.segment = traits) },
  };
  tell(page as never, { ga4: true, segment: true }, {}, data.company?.companyId ?? '', flatten(data, fields));
  return got;
}

/** Every name and value within GA4's documented limits, every name a valid one. */
function expectWithinLimits(ga4: Properties): void {
  expect(Object.keys(ga4).length).toBeLessThanOrEqual(DOCUMENTED.properties);
  for (const [name, value] of Object.entries(ga4)) {
    expect(name.length, name).toBeLessThanOrEqual(DOCUMENTED.name);
    expect(name).toMatch(/^[a-z][a-z0-9_]*$/); // a letter first, letters, digits, underscores
    expect(name).not.toMatch(/^(ga_|google_|firebase_)/);
    if (typeof value === 'string') expect([...value].length, name).toBeLessThanOrEqual(DOCUMENTED.value);
  }
}

const product = (name: string, i: number): SvcScore => ({
  is_svcqa: i % 2 === 0,
  product: name,
  product_display_name: name,
  intent_score: 10 * i,
  buying_stage: 'Consideration',
  profile_score: 50 + i,
  profile_fit: 'Moderate',
});

/** The biggest default answer: long texts in every field, seven products with long names. */
function crowded(products = 7): SvcData {
  const data = matched();
  data.company.name = 'International Business Machines Corporation of the Americas';
  data.company.industry = 'Computer Hardware and Enterprise Infrastructure Software';
  data.segments = {
    ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    names: ['Enterprise Software', 'North America', 'Fintech Leaders', 'Hot Accounts'],
    list: [],
  };
  data.scores = ['sales-intelligence', 'customer-data-platform', 'Web Analytics', 'cdp', 'field service management', 'security-operations-center', 'x']
    .slice(0, products)
    .map(product);
  return data;
}

describe('GA4 user properties', () => {
  it('use the limits GA4 documents: 25 user properties, names of 24 characters, values of 36', () => {
    expect({ properties: GA4_PROPERTIES_MAX, name: GA4_NAME_MAX, value: GA4_VALUE_MAX }).toEqual(DOCUMENTED);
  });

  it('by default fit those limits, with every product represented by its stage and intent (the dataLayer holds more)', () => {
    const data = crowded();
    const { event, svc_company_match, ...dataLayer } = flatten(data) as unknown as Record<string, unknown>;
    expect(Object.keys(dataLayer).length).toBeGreaterThan(DOCUMENTED.properties); // what GA4 once got: 25 company fields and 5 per product
    const { ga4 } = accountProperties(data);
    expectWithinLimits(ga4);
    expect(Object.keys(ga4)).toHaveLength(DOCUMENTED.properties); // 11 of the account, 2 for each of 7 products
    expect(Object.keys(ga4).filter((k) => /_(stage|intent)$/.test(k))).toEqual([
      'svc_sales_intelli_intent',
      'svc_sales_intelli_stage',
      'svc_customer_data_intent',
      'svc_customer_data_stage',
      'svc_web_analytics_intent',
      'svc_web_analytics_stage',
      'svc_cdp_intent',
      'svc_cdp_stage',
      'svc_field_service_intent',
      'svc_field_service_stage',
      'svc_security_oper_intent',
      'svc_security_oper_stage',
      'svc_x_intent',
      'svc_x_stage',
    ]);
    expect(ga4.svc_x_intent).toBe(60);
  });

  it('are, by default, the account in 11 properties and each product in 2 (the fixture: 2 products, 15 properties)', () => {
    const { ga4 } = accountProperties();
    expect(ga4).toEqual({
      svc_company_id: 'c-000042',
      svc_company_name: 'Globex Corporation',
      svc_company_domain: 'globex.example',
      svc_industry: 'Software',
      svc_employee_range: '1,000 - 4,999',
      svc_revenue_range: '$250M - $500M',
      svc_country: 'United States',
      svc_is_svcqa: true,
      svc_confidence: 'High',
      svc_segment_ids: '12,15',
      svc_segment_names: 'Enterprise Software,North America', // 33: kept whole
      svc_cdp_stage: 'Decision',
      svc_cdp_intent: 82,
      svc_web_analytics_stage: 'Awareness',
      svc_web_analytics_intent: 35,
    });
    expect(Object.keys(accountProperties(crowded(0)).ga4)).toHaveLength(11); // no product
  });

  it('cut a longer text after its last whole word within 36 characters, without a dangling separator', () => {
    expect(ga4Value('International Business Machines Corporation')).toBe('International Business Machines');
    expect(ga4Value('Enterprise Software,North America,Fintech Leaders')).toBe('Enterprise Software,North America');
    expect(ga4Value('Computer Hardware and Enterprise Infrastructure')).toBe('Computer Hardware and Enterprise');
    // The 36th character ends a word (the 37th is a separator): kept.
    expect(ga4Value(`${'a'.repeat(30)} bcdef, and more`)).toBe(`${'a'.repeat(30)} bcdef`);
    // A separator run before the cut goes with it; accents and other scripts are letters.
    expect(ga4Value('Société Générale — Investissements Européens')).toBe('Société Générale — Investissements');
    expect(ga4Value('Müller & Söhne Maschinenbau GmbH & Co. KG Werk 2')).toBe('Müller & Söhne Maschinenbau GmbH'); // "Co" ends at 37
    // No word boundary within the limit: cut at 36 characters (whole characters: an emoji is not split).
    expect(ga4Value('x'.repeat(50))).toBe('x'.repeat(36));
    expect(ga4Value('株式会社日本電気情報システム株式会社日本電気情報システム株式会社日本電気情報システム')).toHaveLength(36);
    expect(ga4Value(`${'🚀'.repeat(40)}`)).toBe('🚀'.repeat(36));
    // 36 characters or fewer, numbers, booleans, null: as they are.
    expect(ga4Value('y'.repeat(36))).toBe('y'.repeat(36));
    for (const v of [82, false, null]) expect(ga4Value(v)).toBe(v);
    for (const text of ['International Business Machines Corporation', 'a, b, c, d, e, f, g, h, i, j, k, l, m, n, o', `${'z'.repeat(35)} ok`])
      expect([...(ga4Value(text) as string)].length).toBeLessThanOrEqual(DOCUMENTED.value);
  });

  it("cut the answer's long values by that rule", () => {
    const { ga4 } = accountProperties(crowded());
    expect(ga4.svc_company_name).toBe('International Business Machines');
    expect(ga4.svc_industry).toBe('Computer Hardware and Enterprise');
    expect(ga4.svc_segment_ids).toBe('1,2,3,4,5,6,7,8,9,10,11,12');
    expect(ga4.svc_segment_names).toBe('Enterprise Software,North America');
  });

  it('with the fields setting, take the ones of the default set it lets through, 25 at most, the first ones', () => {
    const { ga4 } = accountProperties(matched(), ['name', 'naics', 'sic_description', 'scores']);
    expect(ga4).toEqual({
      svc_company_name: 'Globex Corporation',
      svc_cdp_intent: 82,
      svc_cdp_stage: 'Decision',
      svc_web_analytics_intent: 35,
      svc_web_analytics_stage: 'Awareness',
    });
    // Every field asked for, eight products: the 11 of the account and the first 7 products (25).
    const every = Object.keys(matched().company).filter((f) => f !== 'industry_v2');
    const many = accountProperties(crowded(7), [...every, 'confidence', 'segments', 'scores']);
    expect(many.ga4).toEqual(accountProperties(crowded(7)).ga4);
    const eight = crowded(7);
    eight.scores = [...eight.scores!, product('eighth', 8)];
    const capped = accountProperties(eight).ga4;
    expectWithinLimits(capped);
    expect(Object.keys(capped)).toHaveLength(DOCUMENTED.properties);
    expect(capped).not.toHaveProperty('svc_eighth_stage');
    expect(many.segment).toHaveProperty('address'); // the other tools get what fields lets through
  });

  it('keep null (it clears a property another account set) and numbers and booleans as they are', () => {
    const { ga4 } = accountProperties({ company: { company_match: 'Match', name: 'Tiny Co', industry: null } }, ['name', 'industry', 'confidence']);
    expect(ga4).toEqual({ svc_company_name: 'Tiny Co', svc_industry: null, svc_confidence: null });
  });

  it('follow the fields allow-list: nothing it leaves out, address only when asked for', () => {
    expect(accountProperties(matched(), ['name', 'domain']).ga4).toEqual({
      svc_company_name: 'Globex Corporation',
      svc_company_domain: 'globex.example',
    });
    expect(JSON.stringify(accountProperties())).not.toMatch(/Market Street|94105|555 0100|Oakland/);
    expect(accountProperties(matched(), []).ga4).toEqual({});
  });
});

describe('Segment group traits', () => {
  it("are the allow-listed fields without svc_, Segment's reserved names where they fit (name, id, domain)", () => {
    const { segment } = accountProperties();
    expect(segment).toMatchObject({
      id: 'c-000042',
      name: 'Globex Corporation',
      domain: 'globex.example',
      display_name: 'Globex',
      industry: 'Software',
      employee_range: '1,000 - 4,999',
      employee_count: '2400',
      revenue_range: '$250M - $500M',
      country: 'United States',
      segment_ids: '12,15',
      segment_names: 'Enterprise Software,North America',
      web_analytics_buying_stage: 'Awareness', // no length limit here
      confidence: 'High',
    });
    expect(segment).not.toHaveProperty('event');
    expect(segment).not.toHaveProperty('match');
    expect(segment).not.toHaveProperty('company_match');
    expect(Object.keys(segment).filter((k) => k.startsWith('svc_'))).toEqual([]);
  });

  it('follow the fields allow-list', () => {
    expect(accountProperties(matched(), ['name', 'employee_range', 'segments']).segment).toEqual({
      name: 'Globex Corporation',
      employee_range: '1,000 - 4,999',
      segment_ids: '12,15',
      segment_names: 'Enterprise Software,North America',
    });
  });
});

describe('tell', () => {
  const tools = () => ({ gtag: vi.fn(), analytics: { group: vi.fn() } });

  it('calls gtag set user_properties and analytics.group once each, for the tools asked for', () => {
    const page = tools();
    const told = {};
    tell(page, { ga4: true, segment: true }, told, 'c-000042', flatten(matched()));
    expect(page.gtag).toHaveBeenCalledTimes(1);
    expect(page.gtag).toHaveBeenCalledWith('set', 'user_properties', accountProperties().ga4);
    expect(page.analytics.group).toHaveBeenCalledTimes(1);
    expect(page.analytics.group).toHaveBeenCalledWith('c-000042', accountProperties().segment);
    expect(told).toEqual({ ga4: true, segment: true });
    tell(page, { ga4: true, segment: true }, told, 'c-000042', flatten(matched())); // told already
    expect(page.gtag).toHaveBeenCalledTimes(1);
    expect(page.analytics.group).toHaveBeenCalledTimes(1);
  });

  it('tells no tool that was not asked for, and none without a setting', () => {
    const page = tools();
    tell(page, { ga4: true }, {}, 'c-1', flatten(matched()));
    tell(page, undefined, {}, 'c-1', flatten(matched()));
    tell(page, { ga4: false, segment: false }, {}, 'c-1', flatten(matched()));
    expect(page.gtag).toHaveBeenCalledTimes(1);
    expect(page.analytics.group).not.toHaveBeenCalled();
  });

  it('leaves a missing tool out of told, so a later call tells it once it is there', () => {
    const page: Parameters<typeof tell>[0] = {};
    const told = {};
    tell(page, { ga4: true, segment: true }, told, 'c-000042', flatten(matched()));
    expect(told).toEqual({});
    page.analytics = { group: vi.fn() };
    tell(page, { ga4: true, segment: true }, told, 'c-000042', flatten(matched()));
    expect(told).toEqual({ segment: true });
    expect(page.analytics.group).toHaveBeenCalledTimes(1);
  });

  it('never throws: a tool that throws is reported on the console, the other is still told', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const group = vi.fn();
    const page = {
      gtag: () => {
        throw new Error('gtag broke');
      },
      analytics: { group },
    };
    expect(() => tell(page, { ga4: true, segment: true }, {}, 'c-1', flatten(matched()))).not.toThrow();
    expect(group).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledWith('[svc]', expect.objectContaining({ message: 'gtag broke' }));
    // An element with id="analytics" is window.analytics: no group() to call, reported, not thrown.
    expect(() => tell({ analytics: {} as never }, { segment: true }, {}, 'c-1', flatten(matched()))).not.toThrow();
    error.mockRestore();
  });
});

describe('tellAnswer (what the tag calls on each try, through the chunk)', () => {
  /** A page with both tools recording their calls, and `data` as its answer. */
  const pageWith = (data: SvcData | null) => ({ gtag: vi.fn(), analytics: { group: vi.fn() }, svc: { data } as never });

  it('tells the tools asked for what tell gives them for the answer, with the fields the config has now', () => {
    const data = matched();
    const page = pageWith(data);
    tellAnswer(page, { integrations: { ga4: true, segment: true } }, data);
    expect(page.gtag.mock.calls).toEqual([['set', 'user_properties', accountProperties(data).ga4]]);
    expect(page.analytics.group.mock.calls).toEqual([['c-000042', accountProperties(data).segment]]);
    const narrow = matched();
    const other = pageWith(narrow);
    tellAnswer(other, { integrations: { ga4: true }, fields: ['name'] }, narrow);
    expect(other.gtag.mock.calls).toEqual([['set', 'user_properties', { svc_company_name: 'Globex Corporation' }]]);
    expect(other.analytics.group).not.toHaveBeenCalled();
  });

  it('tells each tool once per answer: the retry tells only a tool asked for or arrived since, a new answer tells again', () => {
    const data = matched();
    const page: Omit<ReturnType<typeof pageWith>, 'analytics'> & { analytics?: { group: () => void } } = { ...pageWith(data), analytics: undefined };
    const config = { integrations: { ga4: true } as { ga4?: boolean; segment?: boolean } };
    tellAnswer(page, config, data);
    config.integrations.segment = true; // an `integrations` command after the answer
    const group = vi.fn();
    page.analytics = { group }; // a tool that came late
    tellAnswer(page, config, data); // the retry
    tellAnswer(page, config, data);
    expect(page.gtag).toHaveBeenCalledTimes(1);
    expect(group).toHaveBeenCalledTimes(1);
    const next = matched();
    page.svc = { data: next } as never;
    tellAnswer(page, config, next);
    expect(page.gtag).toHaveBeenCalledTimes(2);
    expect(group).toHaveBeenCalledTimes(2);
  });

  it("tells nothing once the answer is no longer the page's (opt-out, another answer) or without a tool asked for", () => {
    const data = matched();
    for (const page of [pageWith(null), pageWith(matched()), { gtag: vi.fn(), analytics: { group: vi.fn() } }]) {
      tellAnswer(page, { integrations: { ga4: true, segment: true } }, data);
      expect(page.gtag).not.toHaveBeenCalled();
      expect(page.analytics.group).not.toHaveBeenCalled();
    }
    const page = pageWith(data);
    tellAnswer(page, {}, data);
    tellAnswer(page, { integrations: { ga4: false, segment: false } }, data);
    expect(page.gtag).not.toHaveBeenCalled();
    expect(page.analytics.group).not.toHaveBeenCalled();
  });

  it("is the chunk's export `t`, on the page's window, and never throws (a bad fields setting is reported on the console)", () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const data = matched();
    const page = pageWith(data);
    vi.stubGlobal('window', page);
    try {
      chunkTellAnswer({ integrations: { segment: true } }, data);
      expect(page.analytics.group).toHaveBeenCalledWith('c-000042', accountProperties(data).segment);
      expect(() => chunkTellAnswer({ integrations: { ga4: true }, fields: 5 as never }, data)).not.toThrow();
      expect(error).toHaveBeenCalledWith('[svc]', expect.any(TypeError));
    } finally {
      vi.unstubAllGlobals();
      error.mockRestore();
    }
  });
});
