import { describe, expect, it } from 'vitest';
import type { AccountCrm, ExplainedScore } from '../accounts/account.ts';
import {
  accountCsvFileName,
  accountOwner,
  accountTopics,
  crmLine,
  initials,
  intentFactors,
  listLabels,
  profileFactors,
  sessionSummary,
} from './account-view.ts';

const score: ExplainedScore = {
  product: 'cdp',
  product_display_name: 'Customer Data Platform',
  is_svcqa: true,
  intent_score: 71,
  buying_stage: 'Decision',
  profile_score: 73,
  profile_fit: 'Strong',
  factors: {
    intent: {
      points: 124,
      signals: [{ topic: 'Lead Scoring', strength: 60, age_days: 30, weight: 0.5, points: 30 }],
      page_views: [
        { day: '2026-04-24', path: '/pricing', page_views: 2, high_intent: true, weight: 0.5, points: 10 },
        { day: '2026-05-01', path: '/blog', page_views: 1, high_intent: false, weight: 1, points: 1 },
      ],
    },
    profile: { industry: 40, employee_range: 12.5, revenue_range: 20, region: 0, points: 72.5 },
  },
};

describe('account view', () => {
  it('words the intent factors: signals, then page views', () => {
    expect(intentFactors(score)).toEqual([
      'Intent signal “Lead Scoring”: strength 60, 30 days old (× 0.5) → 30 points',
      'High-intent page /pricing on 2026-04-24: 2 views (× 0.5) → 10 points',
      'Page /blog on 2026-05-01: 1 view (× 1) → 1 points',
    ]);
  });

  it('words the profile factors of every ICP dimension', () => {
    expect(profileFactors(score)).toEqual(['Industry: 40 of 40', 'Employees: 12.5 of 25', 'Revenue: 20 of 20', 'Region: 0 of 15']);
  });

  it('names the lists the account is in', () => {
    expect(listLabels({ hot: true, hot_products: [], excluded: false, named: [{ id: 'abm', name: 'ABM Q4' }] })).toEqual(['Hot account', 'ABM Q4']);
    expect(listLabels({ hot: true, hot_products: ['cdp'], excluded: true, named: [] })).toEqual(['Hot account (cdp)', 'Excluded']);
    expect(listLabels({ hot: false, hot_products: [], excluded: false, named: [] })).toEqual([]);
  });

  it('summarises a session and names the CSV file', () => {
    expect(sessionSummary({ first_seen: '2026-11-20T10:00:00.000Z', last_seen: '2026-11-20T10:04:10.000Z', page_views: 3 })).toBe('3 pages in 4 min');
    expect(sessionSummary({ first_seen: '2026-11-20T10:00:00.000Z', last_seen: '2026-11-20T10:00:00.000Z', page_views: 1 })).toBe('1 page');
    expect(accountCsvFileName('acme', '900001', '2026-11-01', '2026-11-30')).toBe('account-acme-900001-2026-11-01-2026-11-30.csv');
  });
});

describe('the CRM side of an account', () => {
  const hubspot: AccountCrm = {
    provider: 'hubspot',
    crm_ids: ['101'],
    owner_email: 'jane@acme.com',
    owner_name: 'Jane Doe',
    stage: 'opportunity',
    type: null,
    read_at: '2026-05-01T10:00:00.000Z',
    written_at: null,
  };
  it('says the owner and the stage of each CRM in a line', () => {
    expect(crmLine(hubspot)).toBe('Owner: Jane Doe (jane@acme.com) · HubSpot lifecycle stage: opportunity');
    expect(crmLine({ ...hubspot, provider: 'salesforce', owner_name: null, stage: null, type: 'Customer - Direct' })).toBe(
      'Owner: jane@acme.com · Salesforce type: Customer - Direct',
    );
    expect(crmLine({ ...hubspot, owner_email: null, owner_name: null, stage: null, crm_ids: ['1', '2'] })).toBe(
      'No HubSpot owner · no HubSpot stage or type · 2 HubSpot records of this domain',
    );
    expect(crmLine({ ...hubspot, type: 'PROSPECT' })).toBe('Owner: Jane Doe (jane@acme.com) · HubSpot lifecycle stage: opportunity · HubSpot type: PROSPECT');
  });
});

describe('the profile card of an account', () => {
  it('draws the logo placeholder from the name, else the domain', () => {
    expect(initials('Acme Corp', 'acme.com')).toBe('AC');
    expect(initials('globex', null)).toBe('G');
    expect(initials('Ünited  Widgets & Co', null)).toBe('ÜW');
    expect(initials(null, 'www.initech.example')).toBe('I');
    expect(initials(null, null)).toBe('?');
  });
  it("names the owner of the first CRM that has one, with that record's stage", () => {
    const none: AccountCrm = {
      provider: 'hubspot',
      crm_ids: ['1'],
      owner_email: null,
      owner_name: null,
      stage: 'lead',
      type: null,
      read_at: null,
      written_at: null,
    };
    const sf: AccountCrm = { ...none, provider: 'salesforce', owner_email: 'sam@acme.com', stage: null, type: 'Prospect' };
    expect(accountOwner([none, sf])).toEqual({ owner: 'sam@acme.com · Salesforce', stage: 'Prospect' });
    expect(accountOwner([{ ...none, owner_name: 'Jane Doe', owner_email: 'jane@acme.com' }])).toEqual({ owner: 'Jane Doe · HubSpot', stage: 'lead' });
    expect(accountOwner([none])).toBeNull();
    expect(accountOwner([])).toBeNull();
  });
  it('lists each intent topic once, strongest first, with the products it counts for', () => {
    const other: ExplainedScore = {
      ...score,
      product: 'crm',
      product_display_name: 'CRM',
      factors: {
        ...score.factors,
        intent: {
          ...score.factors.intent,
          signals: [
            { topic: 'Lead Scoring', strength: 80, age_days: 2, weight: 1, points: 80 },
            { topic: 'ABM', strength: 60, age_days: 9, weight: 1, points: 60 },
          ],
        },
      },
    };
    expect(accountTopics([score, other])).toEqual([
      { topic: 'Lead Scoring', strength: 80, age_days: 2, products: ['Customer Data Platform', 'CRM'] },
      { topic: 'ABM', strength: 60, age_days: 9, products: ['CRM'] },
    ]);
    expect(accountTopics([])).toEqual([]);
  });
});
