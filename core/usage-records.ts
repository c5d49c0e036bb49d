/**
 * Credit usage as metering records it and the console shows it (`GET /admin/api/customers/:id/credits`):
 * charges per pool, API and month. Wire and storage shapes, so they live in the neutral core (the
 * console's bundle imports them from here); the rules that charge are server/credits/rules.ts.
 */

/** The two credit pools a charge is drawn from (spec "Credits"). */
export type CreditPool = 'identification' | 'enrichment';

/** Charges of one pool and API in one month; `partner_charges` of them made through a partner. */
export interface UsageRow {
  pool: CreditPool;
  api: string;
  month: string;
  charges: number;
  partner_charges: number;
}
