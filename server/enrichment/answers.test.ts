import { describe, expect, it } from 'vitest';
import { ACME_SOFTWARE, FIXTURE_PEOPLE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import {
  type AnswerContext,
  combinedAnswer,
  firmographicsAnswer,
  type LeadFacts,
  leadScoringAnswer,
  leadTitle,
  MESSAGES,
  V2_DEPRECATION_HEADERS,
} from './answers.ts';
import { companyV2, companyV3 } from './company-payload.ts';
import {
  CombinedNotFound,
  CombinedResponse,
  EnrichedCompanyV2,
  EnrichedCompanyV3,
  FirmographicsV2NotFound,
  FirmographicsV2Response,
  FirmographicsV3NotFound,
  FirmographicsV3Response,
  LeadScoringNotFound,
  LeadScoringResponse,
} from './schema.ts';

const now = new Date('2026-11-01T00:00:00Z');
const ctx: AnswerContext = { customer: TEST_CUSTOMER, settings: { segment_names: true }, now };
const title = { titleLevel: 'VP', titleFunction: 'Marketing' };
const jane = FIXTURE_PEOPLE[0];
const found: LeadFacts = {
  resolution: { outcome: 'found', company: ACME_SOFTWARE, person: jane, via: 'person' },
  title,
  signals: [{ topic: 'customer data platform', strength: 80, observed_at: '2026-11-01' }],
  engagement: [{ activity: 'meeting', count: 3, observed_at: '2026-11-01' }],
};
const invalid: LeadFacts = { ...found, resolution: { outcome: 'invalid-email' }, signals: [], engagement: [] };
const unknown: LeadFacts = { ...found, resolution: { outcome: 'not-found', person: null }, signals: [], engagement: [] };

describe('company objects', () => {
  it('use the spec sample names, strings; v2 has no companyId', () => {
    const v3 = EnrichedCompanyV3.parse(companyV3(ACME_SOFTWARE, title, []));
    expect(v3).toMatchObject({
      companyId: '900001',
      countryISOCode: 'US',
      streetAddress: '1 Market St',
      postalCode: '94105',
      companyPhone: '+1 415 555 0100',
      siccode: '7372',
      sicdescription: 'Prepackaged Software',
      naicscode: '511210',
      titleLevel: 'VP',
    });
    expect(Object.keys(v3)[0]).toBe('companyId');
    const v2 = EnrichedCompanyV2.parse(companyV2(ACME_SOFTWARE, title, []));
    expect(v2).not.toHaveProperty('companyId');
  });
  it('are entirely null without a company, title and is_blacklisted included (null rule)', () => {
    const blank = EnrichedCompanyV3.parse(companyV3(null, title, [ACME_SOFTWARE.company_id]));
    expect(Object.values(blank).every((v) => v === null)).toBe(true);
  });
  it('answer null, never "", for a field the catalog leaves empty', () => {
    const v3 = EnrichedCompanyV3.parse(companyV3({ ...ACME_SOFTWARE, phone: '', sic: ' ', naics_description: '' }, { titleLevel: '', titleFunction: '' }, []));
    expect(v3).toMatchObject({ companyPhone: null, siccode: null, naicsdescription: null, titleLevel: null, titleFunction: null, name: 'Northwind Analytics' });
    expect(Object.values(v3)).not.toContain('');
  });
  it('flag an excluded account with is_blacklisted', () => {
    expect(companyV3(ACME_SOFTWARE, title, [ACME_SOFTWARE.company_id]).is_blacklisted).toBe(true);
    expect(companyV2(ACME_SOFTWARE, title, ['other']).is_blacklisted).toBe(false);
  });
});

describe('firmographicsAnswer', () => {
  it('v3: 200 with company and segments, charging the company id', () => {
    const r = firmographicsAnswer('v3', found, ctx);
    expect(r.status).toBe(200);
    expect(FirmographicsV3Response.parse(r.body).segments).toEqual({
      ids: [101],
      names: ['Enterprise Software'],
      list: [{ name: 'Enterprise Software', id: 101 }],
    });
    expect(r.charge).toEqual({ api: 'company-firmographics-v3', record: '900001' });
  });
  it('hides segment names unless the token may see them', () => {
    const r = firmographicsAnswer('v3', found, { ...ctx, settings: { segment_names: false } });
    expect((r.body as { segments: unknown }).segments).toEqual({ ids: [101], names: [], list: [{ name: null, id: 101 }] });
  });
  it('v2: the v2 field set and its own charge', () => {
    const r = firmographicsAnswer('v2', found, ctx);
    FirmographicsV2Response.parse(r.body);
    expect(r.charge).toEqual({ api: 'company-firmographics-v2', record: '900001' });
  });
  it('v2 deprecation headers: an RFC 9745 date and the successor link', () => {
    expect(V2_DEPRECATION_HEADERS).toEqual({ Deprecation: expect.stringMatching(/^@\d+$/), Link: '</v1/enrichment/company>; rel="successor-version"' });
  });
  it('404 with blank data: invalid email and no data found', () => {
    const a = firmographicsAnswer('v3', invalid, ctx);
    expect(a.status).toBe(404);
    expect(a.charge).toBeUndefined();
    expect(FirmographicsV3NotFound.parse(a.body)).toMatchObject({
      status: 'error',
      message: MESSAGES.invalidEmail,
      segments: { ids: [], names: [], list: [] },
    });
    const b = firmographicsAnswer('v2', unknown, ctx);
    expect(FirmographicsV2NotFound.parse(b.body).message).toMatch(/no data found.*contact support/i);
  });
});

describe('combinedAnswer', () => {
  it('200 with person-level scores when the customer has advanced', () => {
    const r = combinedAnswer(found, ctx);
    const body = CombinedResponse.parse(r.body);
    expect(body.scores).toEqual([
      {
        product: 'cdp',
        company_intent_score: 55,
        company_buying_stage: 'Consideration',
        company_profile_score: 100,
        company_profile_fit: 'Strong',
        contact_intent_score: 95,
        contact_grade: 'A',
        contact_profile_score: 100,
        contact_profile_fit: 'Strong',
      },
    ]);
    expect(r.charge).toEqual({ api: 'lead-scoring-firmographics', record: '900001' });
  });
  it('without advanced the enrichment still works and scores are []', () => {
    const r = combinedAnswer(found, { ...ctx, customer: { ...TEST_CUSTOMER, packages: ['platform'] } });
    expect(r.status).toBe(200);
    expect(CombinedResponse.parse(r.body).scores).toEqual([]);
  });
  it('404 with blank data', () => {
    const r = combinedAnswer(unknown, ctx);
    expect(CombinedNotFound.parse(r.body)).toMatchObject({ status: 'error', scores: [], company: { companyId: null, titleLevel: null } });
    expect(r.charge).toBeUndefined();
  });
});

describe('leadScoringAnswer', () => {
  it('scores a known lead and never charges', () => {
    const r = leadScoringAnswer(found, ctx);
    expect(LeadScoringResponse.parse(r.body).scores[0]).toMatchObject({ contact_grade: 'A', company_buying_stage: 'Consideration' });
    expect(r.charge).toBeUndefined();
  });
  it('an unknown company still gets contact scores from the title (engagement zero → D)', () => {
    const r = leadScoringAnswer(unknown, ctx);
    expect(r.status).toBe(200);
    expect(LeadScoringResponse.parse(r.body).scores).toEqual([
      {
        product: 'cdp',
        company_intent_score: 0,
        company_buying_stage: 'Target',
        company_profile_score: 0,
        company_profile_fit: 'Weak',
        contact_intent_score: 0,
        contact_grade: 'D',
        contact_profile_score: 100,
        contact_profile_fit: 'Strong',
      },
    ]);
  });
  it('404 only for a malformed email', () => {
    const r = leadScoringAnswer(invalid, ctx);
    expect(r.status).toBe(404);
    expect(LeadScoringNotFound.parse(r.body)).toEqual({ status: 'error', message: MESSAGES.invalidEmail, scores: [], code: 'not_found' });
  });
});

describe('leadTitle', () => {
  it("prefers the known person's title, else the request's", () => {
    expect(leadTitle(jane, 'Intern')).toBe('VP of Marketing');
    expect(leadTitle({ title: '  ' }, 'Intern')).toBe('Intern');
    expect(leadTitle(null, 'Intern')).toBe('Intern');
  });
});
