/**
 * CRM records for tests (core/crm-records.ts): a connection, a run and an account record of customer
 * `acme`'s HubSpot unless told otherwise, every field filled.
 */
import type { CrmAccountRecord, CrmConnectionRecord, CrmProvider, CrmRunRecord } from '../../core/crm-records.ts';

export const CRM_AT = '2026-11-20T10:00:00.000Z';

/** `i` minutes after CRM_AT (ISO). */
export const crmMinute = (i: number) => new Date(Date.parse(CRM_AT) + i * 60_000).toISOString();

export const crmConnection = (customer_id: string, provider: CrmProvider, over: Partial<CrmConnectionRecord> = {}): CrmConnectionRecord => ({
  customer_id,
  provider,
  base_url: provider === 'hubspot' ? 'https://api.hubapi.com' : 'https://acme.my.salesforce.com',
  client_id: provider === 'hubspot' ? null : 'client-1',
  secret_prefix: 'secret-pre',
  status: 'active',
  attention: null,
  mapping: { hot: 'svc_hot', segments: null },
  create_missing: false,
  created_at: CRM_AT,
  updated_at: CRM_AT,
  last_run_at: null,
  last_full_at: null,
  config_hash: null,
  ...over,
});

const counts = { accounts: 0, matched: 0, written: 0, created: 0, unchanged: 0, not_found: 0, invalid_domain: 0, multiple_matches: 0, failed: 0, requests: 0 };

export const crmRun = (id: string, started_at: string, over: Partial<CrmRunRecord> = {}): CrmRunRecord => ({
  id,
  customer_id: 'acme',
  provider: 'hubspot',
  kind: 'incremental',
  status: 'running',
  started_at,
  finished_at: null,
  counts,
  errors: [],
  message: null,
  ...over,
});

export const crmAccount = (company_id: string, over: Partial<CrmAccountRecord> = {}): CrmAccountRecord => ({
  customer_id: 'acme',
  provider: 'hubspot',
  company_id,
  crm_ids: [`crm-${company_id}`],
  owner_email: 'owner@acme.test',
  owner_name: 'Owner',
  stage: 'lead',
  type: null,
  written_hash: null,
  read_at: CRM_AT,
  written_at: null,
  ...over,
});
