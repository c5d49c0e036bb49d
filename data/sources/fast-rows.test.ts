/** The fast paths accept only what zod accepts, with zod's result, and take the ordinary rows. */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import { FAST_ROWS } from './fast-rows.ts';
import {
  COMPANY_COLUMNS,
  DOMAIN_COLUMNS,
  DomainRow,
  ENGAGEMENT_COLUMNS,
  EngagementRow,
  INTENT_COLUMNS,
  IntentRow,
  NETWORK_COLUMNS,
  NetworkRow,
  PERSON_COLUMNS,
  TOPIC_COLUMNS,
  TopicRow,
} from './schema.ts';

/** Values near every rule's edge: blanks, spaces, case, numbers zod coerces, dates, kinds. */
const TRICKY = [
  '',
  ' ',
  'x',
  'company',
  'isp',
  'hosting',
  'bot',
  'Bad Kind',
  'vpn',
  'relay',
  'VPN',
  '9kind',
  'my-kind_2',
  'Company',
  'Very High',
  'High',
  'Moderate',
  'Low',
  'high',
  'Very  High',
  '0',
  '-0',
  '12',
  ' 5 ',
  '7.5',
  '100',
  '100.5',
  '101',
  '-1',
  '1e2',
  '0x10',
  'NaN',
  'Infinity',
  '9007199254740993',
  '3.0',
  '2026-10-01',
  '2026-1-01',
  '2026-10-01T10:00:00Z',
  ' 2026-10-01',
  'P000001',
  '100001',
  '192.0.2.0/24',
  'devops',
  ' devops',
  'devops ',
  'cloud  security',
  'cloud security',
  'cloud\tsecurity',
  'cloud\u00a0security',
  'x'.repeat(200),
  'x'.repeat(201),
  '2026-10-26',
  '2026-10-28',
  '2026-02-30',
  '2026-10-28 09:00',
  '60',
  '060',
  '1000',
  '99.5',
];

const SCHEMAS: [string, z.ZodType, readonly string[], Record<string, string>][] = [
  [
    'networks',
    NetworkRow,
    NETWORK_COLUMNS,
    { network: '192.0.2.0/24', kind: 'company', company_id: '100001', confidence: 'High', country: 'Ireland', state: 'Cork', city: 'Cork', privacy: '' },
  ],
  ['companies', CompanyRow, COMPANY_COLUMNS, { company_id: '100001', name: 'Acme', domain: 'acme.example' }],
  ['people', PersonRow, PERSON_COLUMNS, { people_id: 'P000001', email: 'a@acme.example' }],
  ['domains', DomainRow, DOMAIN_COLUMNS, { domain: 'acme.example', company_id: '100001' }],
  ['intent', IntentRow, INTENT_COLUMNS, { company_id: '100001', topic: 'devops', strength: '38', observed_at: '2026-10-27' }],
  ['engagement', EngagementRow, ENGAGEMENT_COLUMNS, { people_id: 'P000003', activity: 'email_open', count: '3', observed_at: '2026-10-17' }],
  ['topics', TopicRow, TOPIC_COLUMNS, { company_id: '100005', topic: 'cloud security', score: '37', week: '2026-09-14' }],
];

/** What readCsvBatches hands zod: one property per header column, the last of repeated names winning. */
const record = (header: string[], fields: string[]) => {
  const r: Record<string, string> = {};
  for (let k = 0; k < header.length; k++) r[header[k]] = fields[k];
  return r;
};

describe.each(SCHEMAS)('%s fast path', (_name, schema, columns, typical) => {
  const factory = FAST_ROWS.get(schema)!;

  it('takes an ordinary row, with the same result as zod', () => {
    const header = [...columns];
    const fields = header.map((c) => typical[c] ?? '');
    const fast = factory(header)!(fields);
    expect(fast).toBeDefined();
    expect(fast).toStrictEqual(schema.parse(record(header, fields)));
  });

  it('accepts nothing zod rejects and returns what zod returns (random rows, headers with missing, extra and repeated columns)', () => {
    let s = 12345;
    const rnd = (k: number) => {
      s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
      return (s >>> 12) % k;
    };
    let accepted = 0;
    for (let n = 0; n < 20_000; n++) {
      const header = columns.filter(() => rnd(12) !== 0);
      if (rnd(4) === 0) header.push('extra');
      if (rnd(6) === 0) header.push(columns[rnd(columns.length)]);
      const fields = header.map((c) => (rnd(3) === 0 ? TRICKY[rnd(TRICKY.length)] : (typical[c] ?? TRICKY[rnd(TRICKY.length)])));
      const fast = factory(header)?.(fields);
      if (fast === undefined) continue;
      accepted++;
      const parsed = schema.safeParse(record(header, fields));
      expect(parsed.success, JSON.stringify(record(header, fields))).toBe(true);
      expect(fast).toStrictEqual(parsed.data);
    }
    expect(accepted).toBeGreaterThan(1000);
  });
});
