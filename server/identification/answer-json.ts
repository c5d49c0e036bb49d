/**
 * The identification answer as JSON text, byte for byte what `JSON.stringify(answer)` writes, with a
 * Match's firmographics (23 of the company's 31 fields, most of the answer's bytes) serialised once per
 * catalog row instead of on every lookup. Serialising the whole answer was ~5 % of a tag-mode lookup's
 * CPU (V8's JsonStringifier, measured with perf on the production bundle), the biggest single step
 * after the socket write. `answer-json.test.ts` holds it equal to JSON.stringify over every company of
 * the sample data and every kind of answer.
 */
import type { CompanyRow } from '../../core/catalog-records.ts';
import { weakMemo } from '../cache/bounded-cache.ts';
import { ownFirmographics } from './identify.ts';
import type { IdentificationAnswer } from './schema.ts';

/** A row's firmographics as the inside of a JSON object (no braces), `privacy` left out: it comes last. */
const firmographicsFragment = weakMemo((row: CompanyRow) => JSON.stringify(ownFirmographics(row)).slice(1, -1));

/**
 * `row`: the catalog row the answer was built from (null when none). Any answer that is not a Match of
 * that row is serialised whole; a Match's own fields come from the row's fragment, the rest as they are.
 */
export function answerJson(answer: IdentificationAnswer, row: CompanyRow | null): string {
  const c = answer.company;
  if (row === null || c.company_match !== 'Match' || c.companyId !== row.company_id) return JSON.stringify(answer);
  return (
    `{"company":{"company_match":"Match","additional_comment":${JSON.stringify(c.additional_comment)},${firmographicsFragment(row)}` +
    `,"is_blacklisted":${c.is_blacklisted},"is_svcqa":${c.is_svcqa},"geoIP_country":${JSON.stringify(c.geoIP_country)}` +
    `,"geoIP_state":${JSON.stringify(c.geoIP_state)},"geoIP_city":${JSON.stringify(c.geoIP_city)},"privacy":${JSON.stringify(c.privacy)}}` +
    `,"scores":${JSON.stringify(answer.scores)},"segments":${JSON.stringify(answer.segments)},"confidence":${JSON.stringify(answer.confidence)}` +
    (answer.intent_topics === undefined ? '}' : `,"intent_topics":${JSON.stringify(answer.intent_topics)}}`)
  );
}
