import { describe, expect, it } from 'vitest';
import { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { CustomerSeed } from '../../core/customer-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import { overlayGeo } from '../geoip/geoip.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { answerJson } from './answer-json.ts';
import { type IdentifyInput, identify } from './identify.ts';

const customer = CustomerRecord.parse({ ...CustomerSeed.parse(TEST_CUSTOMER), created_at: '2026-01-01T00:00:00Z' });
const now = new Date('2026-11-01T00:00:00Z');
const network = { kind: 'company', company_id: '900001', confidence: 'Very High', country: 'United States', state: 'California', city: 'Oakland' };
const signals = [{ company_id: '900001', topic: 'customer data platform', strength: 80, observed_at: '2026-10-25' }];

function answerOf(company: CompanyRow | null, over: Partial<IdentifyInput> = {}) {
  return identify({
    ip: '23.1.2.3',
    network: company ? { ...network, company_id: company.company_id } : network,
    company,
    signals,
    customer,
    settings: { scores: true, segment_names: true },
    isBot: false,
    now,
    ...over,
  });
}

/** Deterministic text with what JSON must escape or keep: quotes, backslashes, controls, non-ASCII, lone surrogates. */
function nastyText(seed: number): string {
  const parts = ['"', '\\', '\n', '\t', '\u0000', '\u001f', '\u2028', 'é', 'Ä', '株式会社', '😀', '\ud800', '</script>', ' ', 'Inc.', ', Ltd', 'GmbH', 'x'];
  let s = '';
  let n = seed;
  for (let i = 0; i < 1 + (seed % 7); i++) {
    n = (n * 1103515245 + 12345) % 2147483648;
    s += parts[n % parts.length];
  }
  return s;
}

function nastyRow(i: number): CompanyRow {
  const row = { ...ACME_SOFTWARE };
  COMPANY_COLUMNS.forEach((column, k) => {
    // Every fourth field blank (the null rule), the rest nasty; the id stays the network's.
    if (column !== 'company_id') row[column] = (i + k) % 4 === 0 && column !== 'name' && column !== 'domain' ? '' : nastyText(i * 31 + k);
  });
  return row;
}

describe('answerJson', () => {
  it('writes exactly what JSON.stringify writes for every kind of Match answer', () => {
    for (const company of [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE]) {
      for (const settings of [
        { scores: true, segment_names: true },
        { scores: false, segment_names: false },
      ]) {
        const answer = answerOf(company, { settings });
        expect(answer.company.company_match).toBe('Match');
        expect(answerJson(answer, company)).toBe(JSON.stringify(answer));
        // The second answer of the same row comes from its remembered fragment.
        expect(answerJson(answerOf(company, { settings }), company)).toBe(JSON.stringify(answer));
      }
    }
  });

  it('writes exactly what JSON.stringify writes for firmographics that need escaping or are blank', () => {
    for (let i = 0; i < 400; i++) {
      const row = nastyRow(i);
      const answer = answerOf(row);
      expect(answer.company.company_match).toBe('Match');
      expect(answerJson(answer, row)).toBe(JSON.stringify(answer));
    }
  });

  it('keeps the geoIP fields a GeoIP database laid over the answer', () => {
    const answer = answerOf(ACME_SOFTWARE);
    answer.company = overlayGeo(answer.company, { country: 'Deutschland "DE"', state: 'Bayern', city: 'München' }, null);
    expect(answerJson(answer, ACME_SOFTWARE)).toBe(JSON.stringify(answer));
    expect(JSON.parse(answerJson(answer, ACME_SOFTWARE)).company.geoIP_city).toBe('München');
  });

  it('serialises whole any answer that is not a Match of the row it is given', () => {
    const noMatch = answerOf(null, { network: null });
    expect(answerJson(noMatch, null)).toBe(JSON.stringify(noMatch));
    const bot = answerOf(ACME_SOFTWARE, { isBot: true });
    expect(bot.company.company_match).toBe('Non-actionable Match');
    expect(answerJson(bot, ACME_SOFTWARE)).toBe(JSON.stringify(bot));
    // Another row than the one answered (a caller's mistake) never lends its firmographics.
    const acme = answerOf(ACME_SOFTWARE);
    expect(answerJson(acme, BLUEPEAK_MANUFACTURING)).toBe(JSON.stringify(acme));
  });

  it('remembers a fragment per row object, so a changed row (a new data snapshot) is serialised anew', () => {
    const before = { ...ACME_SOFTWARE, name: 'Northwind Analytics' };
    const after = { ...ACME_SOFTWARE, name: 'Northwind Analytics Group' };
    expect(JSON.parse(answerJson(answerOf(before), before)).company.name).toBe('Northwind Analytics');
    expect(JSON.parse(answerJson(answerOf(after), after)).company.name).toBe('Northwind Analytics Group');
  });
});
