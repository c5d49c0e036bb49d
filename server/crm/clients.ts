/**
 * A connection's client: HubSpot's or Salesforce's, from the stored record and its secret (a JSON text:
 * HubSpot `{access_token}`, Salesforce `{client_secret}`; the Salesforce client id is on the record).
 */
import type { CrmConnectionRecord } from '../../core/crm-records.ts';
import { createHubSpotClient } from './hubspot.ts';
import type { CrmClient } from './provider.ts';
import { createSalesforceClient } from './salesforce.ts';

/** What tests and benchmarks tune (the rate HubSpot allows a private app, time budgets); defaults are the providers'. */
export interface ClientTuning {
  hubspotRate?: { requests: number; perMs: number };
  timeoutMs?: number;
  maxRetries?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface CrmSecret {
  access_token?: string;
  client_secret?: string;
}

export const secretText = (secret: CrmSecret): string => JSON.stringify(secret);

export function parseSecret(text: string): CrmSecret {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? (v as CrmSecret) : {};
  } catch {
    return {};
  }
}

export function crmClient(conn: Pick<CrmConnectionRecord, 'provider' | 'base_url' | 'client_id'>, secret: string, tuning: ClientTuning = {}): CrmClient {
  const s = parseSecret(secret);
  const common = { timeoutMs: tuning.timeoutMs, maxRetries: tuning.maxRetries, sleep: tuning.sleep };
  if (conn.provider === 'hubspot')
    return createHubSpotClient({ accessToken: s.access_token ?? '', baseUrl: conn.base_url, rate: tuning.hubspotRate, ...common });
  return createSalesforceClient({ url: conn.base_url, clientId: conn.client_id ?? '', clientSecret: s.client_secret ?? '', ...common });
}
