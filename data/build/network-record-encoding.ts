/**
 * The canonical MMDB encoding of a NetworkRecord (./network-record.ts) written straight from a row of
 * networks.csv: what encodeValue (../mmdb/encoder.ts) writes for the record object, without the object.
 * Why: at 5 million networks, building a record object per row and walking it generically (own keys,
 * sorting them, one call per member) was ≈ 15% of building networks.mmdb. network-record-encoding.test.ts
 * checks the bytes are encodeValue's.
 */
import { FIELD_TYPE } from '../../core/mmdb-format.ts';
import { type ByteSink, encodeToBuffer, writeControl, writeString } from '../mmdb/encoder.ts';

/** The fields a record is made of; blank optional ones are left out of the record. */
export interface NetworkRecordFields {
  kind: string;
  confidence: string;
  company_id: string;
  country: string;
  state: string;
  city: string;
  privacy: string;
}

const key = (k: keyof NetworkRecordFields): Buffer => encodeToBuffer(k);
// In the canonical order of map keys (UTF-8 byte order): city, company_id, confidence, country, kind, privacy, state.
const CITY = key('city');
const COMPANY_ID = key('company_id');
const CONFIDENCE = key('confidence');
const COUNTRY = key('country');
const KIND = key('kind');
const PRIVACY = key('privacy');
const STATE = key('state');

/** Replaces the contents of `sink` with the record's canonical encoding. */
export function encodeNetworkRecord(sink: ByteSink, r: NetworkRecordFields): void {
  sink.len = 0;
  const members = 2 + +(r.company_id !== '') + +(r.country !== '') + +(r.state !== '') + +(r.city !== '') + +(r.privacy !== '');
  writeControl(sink, FIELD_TYPE.map, members);
  if (r.city !== '') member(sink, CITY, r.city);
  if (r.company_id !== '') member(sink, COMPANY_ID, r.company_id);
  member(sink, CONFIDENCE, r.confidence);
  if (r.country !== '') member(sink, COUNTRY, r.country);
  member(sink, KIND, r.kind);
  if (r.privacy !== '') member(sink, PRIVACY, r.privacy);
  if (r.state !== '') member(sink, STATE, r.state);
}

function member(sink: ByteSink, k: Buffer, v: string): void {
  sink.bytes(k);
  writeString(sink, v);
}
