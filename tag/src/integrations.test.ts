import { describe, expect, it, vi } from 'vitest';
import { matched } from '../test/fixtures.ts';
import { flatten } from './datalayer.ts';
import { GA4_NAME_MAX, GA4_VALUE_MAX, type Properties, tell } from './integrations.ts';
import type { SvcData } from './types.ts';

const pushed = (data: SvcData = matched(), fields?: string[]) => flatten(data, fields);

/** What `tell` gives GA4 (user properties) and Segment (group traits) for a dataLayer entry. */
function accountProperties(entry: ReturnType<typeof pushed>): { ga4: Properties; segment: Properties } {
  const got = { ga4: {}, segment: {} } as { ga4: Properties; segment: Properties };
  const page = {
    gtag: (_set: unknown, _name: unknown, ga4: Properties) => (got.ga4 = ga4),
    analytics: { group: (_id: string, traits: Properties) => (got.segment = traits) },
  };
  tell(page as never, { ga4: true, segment: true }, {}, 'c-1', entry);
  return got;
}

describe('GA4 user properties', () => {
  it('are the dataLayer keys without event and match, within GA4 limits (names ≤ 24, values ≤ 36 characters)', () => {
    const { ga4 } = accountProperties(pushed());
    expect(ga4).toMatchObject({
      svc_company_id: 'c-000042',
      svc_company_name: 'Globex Corporation',
      svc_company_domain: 'globex.example',
      svc_industry: 'Software',
      svc_employee_range: '1,000 - 4,999',
      svc_segment_ids: '12,15',
      svc_segment_names: 'Enterprise Software,North America', // 33: kept whole
      svc_cdp_buying_stage: 'Decision',
      svc_cdp_intent_score: 82,
      svc_is_blacklisted: false,
    });
    expect(ga4).not.toHaveProperty('event');
    expect(ga4).not.toHaveProperty('svc_company_match');
    for (const [name, value] of Object.entries(ga4)) {
      expect(name.length, name).toBeLessThanOrEqual(GA4_NAME_MAX);
      expect(name).toMatch(/^[a-z][a-z0-9_]*$/); // a letter first, letters, digits, underscores
      expect(name).not.toMatch(/^(ga_|google_|firebase_)/);
      if (typeof value === 'string') expect([...value].length, name).toBeLessThanOrEqual(GA4_VALUE_MAX);
    }
  });

  it('leave out a key over 24 characters rather than invent a shorter name', () => {
    const { ga4 } = accountProperties(pushed());
    // svc_web_analytics_buying_stage (30), svc_naics_description (21 kept), svc_web_analytics_is_svcqa (26)
    expect(Object.keys(ga4).filter((k) => k.startsWith('svc_web_analytics'))).toEqual([]);
    expect(ga4.svc_naics_description).toBe('Software Publishers');
    expect(pushed()).toHaveProperty('svc_web_analytics_buying_stage'); // dataLayer still has it
  });

  it('cut a longer text to its first 36 characters, whole characters (an emoji is not split)', () => {
    const long = 'International Business Machines Corporation';
    const emoji = `${'x'.repeat(35)}🚀 and more`;
    const { ga4 } = accountProperties(pushed({ company: { company_match: 'Match', name: long, industry: emoji } }, ['name', 'industry']));
    expect(ga4).toEqual({ svc_company_name: long.slice(0, 36), svc_industry: `${'x'.repeat(35)}🚀` });
  });

  it('keep null (it clears a property another account set) and numbers and booleans as they are', () => {
    const { ga4 } = accountProperties(pushed({ company: { company_match: 'Match', name: 'Tiny Co', industry: null } }, ['name', 'industry', 'confidence']));
    expect(ga4).toEqual({ svc_company_name: 'Tiny Co', svc_industry: null, svc_confidence: null });
  });

  it('follow the fields allow-list: nothing it leaves out, address only when asked for', () => {
    expect(accountProperties(pushed(matched(), ['name', 'domain'])).ga4).toEqual({
      svc_company_name: 'Globex Corporation',
      svc_company_domain: 'globex.example',
    });
    expect(JSON.stringify(accountProperties(pushed()))).not.toMatch(/Market Street|94105|555 0100|Oakland/);
    expect(accountProperties(pushed(matched(), [])).ga4).toEqual({});
  });
});

describe('Segment group traits', () => {
  it("are the allow-listed fields without svc_, Segment's reserved names where they fit (name, id, domain)", () => {
    const { segment } = accountProperties(pushed());
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
    expect(accountProperties(pushed(matched(), ['name', 'employee_range', 'segments'])).segment).toEqual({
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
    tell(page, { ga4: true, segment: true }, told, 'c-000042', pushed());
    expect(page.gtag).toHaveBeenCalledTimes(1);
    expect(page.gtag).toHaveBeenCalledWith('set', 'user_properties', accountProperties(pushed()).ga4);
    expect(page.analytics.group).toHaveBeenCalledTimes(1);
    expect(page.analytics.group).toHaveBeenCalledWith('c-000042', accountProperties(pushed()).segment);
    expect(told).toEqual({ ga4: true, segment: true });
    tell(page, { ga4: true, segment: true }, told, 'c-000042', pushed()); // told already
    expect(page.gtag).toHaveBeenCalledTimes(1);
    expect(page.analytics.group).toHaveBeenCalledTimes(1);
  });

  it('tells no tool that was not asked for, and none without a setting', () => {
    const page = tools();
    tell(page, { ga4: true }, {}, 'c-1', pushed());
    tell(page, undefined, {}, 'c-1', pushed());
    tell(page, { ga4: false, segment: false }, {}, 'c-1', pushed());
    expect(page.gtag).toHaveBeenCalledTimes(1);
    expect(page.analytics.group).not.toHaveBeenCalled();
  });

  it('leaves a missing tool out of told, so a later call tells it once it is there', () => {
    const page: Parameters<typeof tell>[0] = {};
    const told = {};
    tell(page, { ga4: true, segment: true }, told, 'c-1', pushed());
    expect(told).toEqual({});
    page.analytics = { group: vi.fn() };
    tell(page, { ga4: true, segment: true }, told, 'c-1', pushed());
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
    expect(() => tell(page, { ga4: true, segment: true }, {}, 'c-1', pushed())).not.toThrow();
    expect(group).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledWith('[svc]', expect.objectContaining({ message: 'gtag broke' }));
    // An element with id="analytics" is window.analytics: no group() to call, reported, not thrown.
    expect(() => tell({ analytics: {} as never }, { segment: true }, {}, 'c-1', pushed())).not.toThrow();
    error.mockRestore();
  });
});
