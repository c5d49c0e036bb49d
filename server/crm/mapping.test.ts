import { describe, expect, it } from 'vitest';
import type { AccountPage } from '../accounts/account.ts';
import { accountValues, defaultField, fieldProblem, fieldValues, mappingProblems, productKey, resolvedFields, valueKeys, valuesHash } from './mapping.ts';

const customer = {
  products: [
    { name: 'Acme CRM', display_name: 'Acme CRM' },
    { name: 'data-platform', display_name: 'Data Platform' },
  ],
} as never;

describe('the values svc writes and their CRM fields', () => {
  it('names a product by its key in lower snake case', () => {
    expect(productKey('Acme CRM')).toBe('acme_crm');
    expect(productKey('data-platform')).toBe('data_platform');
    expect(productKey('  Ünïcode!! ')).toBe('n_code');
  });

  it('gives HubSpot and Salesforce fields the issue’s names', () => {
    expect(resolvedFields('hubspot', customer, {}).map((f) => f.name)).toEqual([
      'svc_company_id',
      'svc_segments',
      'svc_last_visit_at',
      'svc_page_views_30d',
      'svc_top_pages',
      'svc_hot',
      'svc_acme_crm_intent_score',
      'svc_acme_crm_buying_stage',
      'svc_acme_crm_profile_fit',
      'svc_data_platform_intent_score',
      'svc_data_platform_buying_stage',
      'svc_data_platform_profile_fit',
    ]);
    expect(defaultField('salesforce', 'acme_crm.intent_score')).toBe('Svc_Acme_Crm_Intent_Score__c');
    expect(defaultField('salesforce', 'page_views_30d')).toBe('Svc_Page_Views_30d__c');
    for (const f of resolvedFields('salesforce', customer, {})) expect(fieldProblem('salesforce', f.name)).toBeNull();
  });

  it('lets a mapping rename a field or leave a value out', () => {
    const fields = resolvedFields('hubspot', customer, { top_pages: null, segments: 'svc_my_segments' });
    expect(fields.find((f) => f.key === 'segments')?.name).toBe('svc_my_segments');
    expect(fields.some((f) => f.key === 'top_pages')).toBe(false);
    expect(fields).toHaveLength(valueKeys(customer).length - 1);
  });

  it('refuses fields svc does not own, unknown values and a field given twice', () => {
    expect(mappingProblems('hubspot', customer, { segments: 'name' })[0]).toMatch(/name is not a field svc owns/);
    expect(mappingProblems('hubspot', customer, { segments: 'domain' })).toHaveLength(1);
    expect(mappingProblems('salesforce', customer, { hot: 'Website' })[0]).toMatch(/Svc_…__c/);
    expect(mappingProblems('salesforce', customer, { hot: 'Svc_Hot__c' })).toEqual([]);
    expect(mappingProblems('hubspot', customer, { nope: 'svc_nope' })[0]).toMatch(/not a value svc writes/);
    expect(mappingProblems('hubspot', customer, { segments: 'svc_hot' })[0]).toMatch(/given to two values/);
  });

  it('takes the values from the account page', () => {
    const page = {
      company_id: '900001',
      segments: [
        { id: 1, name: 'Enterprise' },
        { id: 2, name: 'Hot; EMEA' },
      ],
      totals: { page_views: 12, sessions: 3, days_active: 2 },
      top_pages: [
        { path: '/pricing', page_views: 7 },
        { path: '/docs', page_views: 5 },
      ],
      lists: { hot: true, hot_products: [], excluded: false, named: [] },
      scores: [{ product: 'Acme CRM', intent_score: 71, buying_stage: 'Decision', profile_fit: 'Strong' }],
    } as unknown as AccountPage;
    const values = accountValues(page, '2026-12-01T10:00:00.000Z');
    expect(values).toEqual({
      company_id: '900001',
      segments: 'Enterprise; Hot; EMEA',
      last_visit_at: '2026-12-01T10:00:00.000Z',
      page_views_30d: 12,
      top_pages: '/pricing (7), /docs (5)',
      hot: true,
      'acme_crm.intent_score': 71,
      'acme_crm.buying_stage': 'Decision',
      'acme_crm.profile_fit': 'Strong',
    });
    const written = fieldValues(resolvedFields('hubspot', customer, {}), values);
    expect(written.svc_acme_crm_intent_score).toBe(71);
    // A product without a score (none answered) is written empty, not left stale.
    expect(written.svc_data_platform_intent_score).toBeNull();
    expect(valuesHash(written)).toBe(valuesHash({ ...written }));
    expect(valuesHash(written)).not.toBe(valuesHash({ ...written, svc_hot: false }));
  });
});
