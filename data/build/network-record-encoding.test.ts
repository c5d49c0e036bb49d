/** encodeNetworkRecord writes the bytes encodeValue writes for the same record object. */
import { describe, expect, it } from 'vitest';
import { ByteSink, encodeToBuffer } from '../mmdb/encoder.ts';
import type { NetworkRecord } from './network-record.ts';
import { encodeNetworkRecord, type NetworkRecordFields } from './network-record-encoding.ts';

const OPTIONAL = ['company_id', 'country', 'state', 'city', 'privacy'] as const;
const SAMPLES: Record<(typeof OPTIONAL)[number], string[]> = {
  company_id: ['', '900001', 'c'.repeat(40)],
  country: ['', 'United States', 'Côte d’Ivoire'],
  state: ['', 'Baden-Württemberg', 'x'.repeat(28), 'y'.repeat(29)],
  city: ['', 'Ann Arbor', '東京', 'z'.repeat(300)],
  privacy: ['', 'vpn'],
};

describe('encodeNetworkRecord', () => {
  it('matches encodeValue of the record object for every combination of members', () => {
    const sink = new ByteSink(16);
    let checked = 0;
    const combos = (i: number, fields: NetworkRecordFields): void => {
      if (i === OPTIONAL.length) {
        const record: NetworkRecord = { kind: fields.kind, confidence: fields.confidence };
        for (const k of OPTIONAL) if (fields[k] !== '') (record as unknown as Record<string, string>)[k] = fields[k];
        encodeNetworkRecord(sink, fields);
        expect(Buffer.from(sink.buf.subarray(0, sink.len))).toEqual(encodeToBuffer(record as never));
        checked++;
        return;
      }
      for (const v of SAMPLES[OPTIONAL[i]]) combos(i + 1, { ...fields, [OPTIONAL[i]]: v });
    };
    for (const kind of ['company', 'isp', 'a_very_long_kind_name_over_28_bytes']) {
      for (const confidence of ['High', 'Very High']) {
        combos(0, { kind, confidence, company_id: '', country: '', state: '', city: '', privacy: '' });
      }
    }
    expect(checked).toBe(6 * 3 * 3 * 4 * 4 * 2);
  });
});
