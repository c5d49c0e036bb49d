import { describe, expect, it } from 'vitest';
import { CRM_FIXED_VALUES, CRM_PRODUCT_VALUES, type CrmRunRecord } from '../../core/crm-records.ts';
import {
  connectBody,
  emptyConnectForm,
  FIXED_VALUE_KEYS,
  formatValue,
  mappingErrorKeys,
  mappingPatch,
  mappingRows,
  PRODUCT_VALUE_KEYS,
  previewColumns,
  previewHeadline,
  runSummary,
  runUnderway,
  statusChip,
} from './crm-view.ts';

const field = (key: string, name: string) => ({ key, field: name, type: 'string' });
const run = (over: Partial<CrmRunRecord> = {}): CrmRunRecord => ({
  id: 'run_1',
  customer_id: 'acme',
  provider: 'hubspot',
  kind: 'incremental',
  status: 'succeeded',
  started_at: '2026-03-01T10:00:00.000Z',
  finished_at: '2026-03-01T10:00:02.000Z',
  counts: { accounts: 12, matched: 10, written: 10, created: 0, unchanged: 0, not_found: 2, invalid_domain: 0, multiple_matches: 0, failed: 0, requests: 3 },
  errors: [],
  message: null,
  ...over,
});

describe('the CRM connect form', () => {
  it('sends HubSpot its token, the base URL only when given, and the create-missing choice', () => {
    expect(connectBody('hubspot', { ...emptyConnectForm(), access_token: ' pat-na1-x ' })).toEqual({
      ok: true,
      body: { access_token: 'pat-na1-x', create_missing: false },
    });
    expect(connectBody('hubspot', { ...emptyConnectForm(), access_token: 'pat', base_url: 'http://127.0.0.1:4010', create_missing: true })).toEqual({
      ok: true,
      body: { access_token: 'pat', base_url: 'http://127.0.0.1:4010', create_missing: true },
    });
  });

  it('sends Salesforce its client credentials and My Domain URL, never the HubSpot fields', () => {
    const form = { ...emptyConnectForm(), access_token: 'stray', client_id: 'cid', client_secret: 'sec', url: 'https://acme.my.salesforce.com' };
    expect(connectBody('salesforce', form)).toEqual({
      ok: true,
      body: { client_id: 'cid', client_secret: 'sec', url: 'https://acme.my.salesforce.com', create_missing: false },
    });
  });

  it('points at the field a person must fill or fix', () => {
    expect(connectBody('hubspot', emptyConnectForm())).toMatchObject({ ok: false, field: 'access_token' });
    expect(connectBody('hubspot', { ...emptyConnectForm(), access_token: 'x', base_url: 'api.hubapi.com' })).toMatchObject({ ok: false, field: 'base_url' });
    const sf = { ...emptyConnectForm(), client_id: 'c', client_secret: 's', url: 'https://a.my.salesforce.com' };
    expect(connectBody('salesforce', { ...sf, client_id: ' ' })).toMatchObject({ ok: false, field: 'client_id' });
    expect(connectBody('salesforce', { ...sf, client_secret: '' })).toMatchObject({ ok: false, field: 'client_secret' });
    expect(connectBody('salesforce', { ...sf, url: 'acme.my.salesforce.com' })).toMatchObject({
      ok: false,
      field: 'url',
      message: expect.stringContaining('My Domain'),
    });
  });
});

describe('a CRM connection as shown', () => {
  it('says its status as a chip', () => {
    expect(statusChip({ status: 'active' })).toEqual({ label: 'active', tone: 'ok' });
    expect(statusChip({ status: 'paused' })).toEqual({ label: 'paused', tone: 'off' });
    expect(statusChip({ status: 'needs_attention' })).toEqual({ label: 'needs attention', tone: 'warn' });
  });

  it('orders value keys as the server does (its lists, copied to keep zod out of the bundle)', () => {
    expect(FIXED_VALUE_KEYS).toEqual(CRM_FIXED_VALUES);
    expect(PRODUCT_VALUE_KEYS).toEqual(CRM_PRODUCT_VALUES);
  });

  it('lists every value key, those turned off too, in the server’s order (fixed keys, then per product)', () => {
    const conn = {
      fields: [
        field('company_id', 'svc_company_id'),
        field('crm.intent_score', 'svc_crm_intent_score'),
        field('segments', 'svc_segs'),
        field('crm.profile_fit', 'svc_crm_profile_fit'),
      ],
      mapping: { segments: 'svc_segs', hot: null, 'crm.buying_stage': null },
    };
    expect(mappingRows(conn)).toEqual([
      { key: 'company_id', field: 'svc_company_id' },
      { key: 'segments', field: 'svc_segs' },
      { key: 'hot', field: '' },
      { key: 'crm.intent_score', field: 'svc_crm_intent_score' },
      { key: 'crm.buying_stage', field: '' },
      { key: 'crm.profile_fit', field: 'svc_crm_profile_fit' },
    ]);
  });

  it('saves only the rows changed: an emptied row is not written, a filled one is, untouched defaults stay defaults', () => {
    const conn = { fields: [field('company_id', 'svc_company_id'), field('segments', 'svc_segments')], mapping: { hot: null }, create_missing: false };
    expect(mappingPatch(conn, { company_id: 'svc_company_id', segments: ' ', hot: 'svc_is_hot ' }, false)).toEqual({
      mapping: { hot: 'svc_is_hot', segments: null },
    });
    expect(mappingPatch(conn, {}, true)).toEqual({ mapping: { hot: null }, create_missing: true });
  });

  it('finds the rows a refused mapping names', () => {
    expect(
      mappingErrorKeys('validation error: mapping.hot: name is not a field svc owns (HubSpot: …); mapping.crm.intent_score: x is not a field svc owns'),
    ).toEqual(['hot', 'crm.intent_score']);
    expect(mappingErrorKeys('mapping: the field svc_x is given to two values')).toEqual([]);
  });

  it('says a run in one line: kind, status, the counts that happened, the run’s own message', () => {
    expect(runSummary(run())).toBe('incremental, succeeded: 12 accounts, 10 matched, 10 written, 2 not found');
    expect(
      runSummary(run({ kind: 'full', status: 'failed', counts: { ...run().counts, written: 0, matched: 0, not_found: 0 }, message: 'HubSpot answered 401' })),
    ).toBe('full backfill, failed: 12 accounts — HubSpot answered 401');
  });

  it('asks again while a run is under way', () => {
    expect(runUnderway([run(), run({ status: 'running' })])).toBe(true);
    expect(runUnderway([run(), run({ status: 'partial' })])).toBe(false);
    expect(runUnderway(null)).toBe(false);
  });

  it('shows a dry run: its columns, its headline, its values', () => {
    expect(previewColumns([{ values: { svc_company_id: '1', svc_hot: true } }, { values: { svc_company_id: '2', svc_segments: 'A' } }])).toEqual([
      'svc_company_id',
      'svc_hot',
      'svc_segments',
    ]);
    expect(previewHeadline(0)).toBe('No account would be written now.');
    expect(previewHeadline(1)).toBe('1 account would get these values');
    expect(previewHeadline(120)).toBe('120 accounts would get these values');
    expect(previewHeadline(1000)).toBe('At least 1,000 accounts would get these values');
    expect([null, true, false, 7, 'x', ''].map((v) => formatValue(v))).toEqual(['—', 'yes', 'no', '7', 'x', '—']);
  });
});
