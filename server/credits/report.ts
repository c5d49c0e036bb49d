/** What `credits show` and the admin API report: balance per pool for the current contract year, usage per API and month. */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { UsageRow } from '../../core/usage-records.ts';
import type { CreditBalance, UsageReports } from '../state/metering/service.ts';
import { quotaPeriod } from './rules.ts';

export interface CreditReport {
  customer: string;
  contract_start: string;
  balances: CreditBalance[];
  usage: UsageRow[];
}

export async function creditReport(store: UsageReports, customer: CustomerRecord, now = new Date()): Promise<CreditReport> {
  const period = quotaPeriod(customer.contract_start, now);
  return {
    customer: customer.id,
    contract_start: customer.contract_start,
    balances: [
      await store.balance(customer.id, 'identification', period, customer.identification_credits),
      await store.balance(customer.id, 'enrichment', period, customer.enrichment_credits),
    ],
    usage: await store.usage(customer.id),
  };
}
