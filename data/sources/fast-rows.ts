/**
 * Fast paths for validating source rows, beside their zod schemas (./schema.ts).
 *
 * Why: `data build` of a million companies validates 14 million CSV rows; zod's safeParse plus the
 * record object it parses cost ≈ 1 µs a row and most of the garbage the build's main thread collects.
 * A fast path here checks the common case — every rule of the schema, written out for plain strings —
 * and builds the row directly from the CSV fields. It may only ever ACCEPT: a row it does not accept
 * goes through zod as before, so what is valid, and every error message, stays zod's. fast-rows.test.ts
 * checks that whatever a fast path accepts, zod accepts with the same result.
 *
 * A factory receives the CSV header and returns a function from a record's fields to the row, or
 * undefined when the header lacks a column the schema requires (zod then reports it).
 */
import type { z } from 'zod';
import { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import { weekOf } from '../../core/topic-records.ts';
import {
  COMPANY_COLUMNS,
  CONFIDENCES,
  DOMAIN_COLUMNS,
  DomainRow,
  ENGAGEMENT_COLUMNS,
  EngagementRow,
  INTENT_COLUMNS,
  IntentRow,
  ISO_DATE_PATTERN,
  KIND_PATTERN,
  NETWORK_COLUMNS,
  NetworkRow,
  PERSON_COLUMNS,
  PRIVACY_REASONS,
  TOPIC_COLUMNS,
  TopicRow,
} from './schema.ts';

export type FastRow<T> = (fields: string[]) => T | undefined;
export type FastRowFactory<T> = (header: string[]) => FastRow<T> | undefined;

/** Column index per name; -1 when absent. The last of repeated names, as in the record zod parses. */
function indexes(header: string[], names: readonly string[]): number[] {
  return names.map((n) => header.lastIndexOf(n));
}

const field = (fields: string[], i: number): string => (i < 0 ? '' : fields[i]);

/** Rows whose columns are all strings: `required` ones non-empty, the others blank allowed ('' when absent). */
function stringRow<T>(names: readonly string[], required: readonly string[]): FastRowFactory<T> {
  return (header) => {
    const at = indexes(header, names);
    const mustFill = names.map((n) => required.includes(n));
    if (at.some((i, k) => i < 0 && mustFill[k])) return undefined;
    return (fields) => {
      const row: Record<string, string> = {};
      for (let k = 0; k < names.length; k++) {
        const v = field(fields, at[k]);
        if (mustFill[k] && v.length === 0) return undefined;
        row[names[k]] = v;
      }
      return row as T;
    };
  };
}

const CONFIDENCE_SET = new Set<string>(CONFIDENCES);
const PRIVACY_SET = new Set<string>(PRIVACY_REASONS);

const networkRow: FastRowFactory<NetworkRow> = (header) => {
  const [network, kind, company, confidence, country, state, city, privacy] = indexes(header, NETWORK_COLUMNS);
  if (network < 0 || kind < 0 || confidence < 0) return undefined;
  return (f) => {
    const k = f[kind];
    const c = field(f, company);
    const p = field(f, privacy);
    if (f[network].length === 0 || !CONFIDENCE_SET.has(f[confidence]) || (p.length !== 0 && !PRIVACY_SET.has(p))) return undefined;
    if (k === 'company' ? c.length === 0 : c.length !== 0 || !KIND_PATTERN.test(k)) return undefined;
    return {
      network: f[network],
      kind: k,
      company_id: c,
      confidence: f[confidence] as NetworkRow['confidence'],
      country: field(f, country),
      state: field(f, state),
      city: field(f, city),
      privacy: p as NetworkRow['privacy'],
    };
  };
};

const intentRow: FastRowFactory<IntentRow> = (header) => {
  const [company, topic, strength, observed] = indexes(header, INTENT_COLUMNS);
  if (company < 0 || topic < 0 || strength < 0 || observed < 0) return undefined;
  return (f) => {
    const s = Number(f[strength]); // z.coerce.number()
    if (f[company].length === 0 || f[topic].length === 0 || !(s >= 0 && s <= 100) || !ISO_DATE_PATTERN.test(f[observed])) return undefined;
    return { company_id: f[company], topic: f[topic], strength: s, observed_at: f[observed] };
  };
};

const engagementRow: FastRowFactory<EngagementRow> = (header) => {
  const [people, activity, count, observed] = indexes(header, ENGAGEMENT_COLUMNS);
  if (people < 0 || activity < 0 || count < 0 || observed < 0) return undefined;
  return (f) => {
    const n = Number(f[count]); // z.coerce.number().int().min(0)
    if (f[people].length === 0 || f[activity].length === 0 || !Number.isSafeInteger(n) || n < 0 || !ISO_DATE_PATTERN.test(f[observed])) return undefined;
    return { people_id: f[people], activity: f[activity], count: n, observed_at: f[observed] };
  };
};

/** A topic name TopicName leaves as it is: no white space at either end, single spaces inside, 1–200 characters. */
const PLAIN_TOPIC = /^\S+(?: \S+)*$/;
/** A whole score without spaces (TopicScore's common case; decimals and spaces go to zod). */
const PLAIN_SCORE = /^\d{1,3}$/;
/** Distinct names and weeks remembered per file: a feed has a few hundred topics and a year of weeks at most. */
const MEMO_LIMIT = 10_000;

/**
 * topics.csv: 7 million rows at a million companies, through zod ≈ 7 µs a row (two transforms, a pipe and a
 * Date per row) — the biggest single cost of `data build`'s main thread. The topic names and weeks repeat,
 * so each distinct text is checked once (weekOf, the function TopicWeek calls, is pure).
 */
const topicRow: FastRowFactory<TopicRow> = (header) => {
  const [company, topic, score, week] = indexes(header, TOPIC_COLUMNS);
  if (company < 0 || topic < 0 || score < 0 || week < 0) return undefined;
  const names = new Map<string, boolean>();
  const mondays = new Map<string, string | null>();
  return (f) => {
    const c = f[company];
    const t = f[topic];
    const s = f[score];
    const w = f[week];
    if (c.length === 0 || !PLAIN_SCORE.test(s)) return undefined;
    const n = Number(s);
    if (n > 100) return undefined;
    let plain = names.get(t);
    if (plain === undefined) {
      plain = t.length <= 200 && PLAIN_TOPIC.test(t);
      if (names.size < MEMO_LIMIT) names.set(t, plain);
    }
    if (!plain) return undefined;
    let monday = mondays.get(w);
    if (monday === undefined) {
      monday = weekOf(w);
      if (mondays.size < MEMO_LIMIT) mondays.set(w, monday);
    }
    if (monday === null) return undefined;
    return { company_id: c, topic: t, score: n, week: monday };
  };
};

/** The fast path of each schema that has one (looked up by readCsvBatches). */
export const FAST_ROWS = new Map<z.ZodType, FastRowFactory<unknown>>([
  [NetworkRow, networkRow],
  [CompanyRow, stringRow<CompanyRow>(COMPANY_COLUMNS, ['company_id', 'name', 'domain'])],
  [PersonRow, stringRow<PersonRow>(PERSON_COLUMNS, ['people_id'])],
  [DomainRow, stringRow<DomainRow>(DOMAIN_COLUMNS, DOMAIN_COLUMNS)],
  [IntentRow, intentRow],
  [EngagementRow, engagementRow],
  [TopicRow, topicRow],
]);
