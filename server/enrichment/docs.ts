/**
 * The OpenAPI operations of the enrichment and scoring routes (route.ts, batch-route.ts), over the shared
 * kit. The batch's examples are the single route's real answers on the sample data (examples.json), each
 * with the status the batch adds: what a batch answers is, item by item, what the single route answers.
 */
import examples from '../openapi/examples.json' with { type: 'json' };
import { errors, json, leadOp, meteredHeaders, PARTNER, REQUEST_ID, schema } from '../openapi/kit.ts';
import { BatchEnrichmentBody, BatchEnrichmentResponse, BatchItem, MAX_BATCH_ITEMS } from './batch-schema.ts';
import { MAX_DOMAIN_LENGTH, MAX_EMAIL_LENGTH } from './request-body.ts';

const ex = examples;

export const enrichCompanyDoc = leadOp({
  operationId: 'enrichCompany',
  summary: 'Company Firmographics v3: the company of an email or domain',
  tag: 'Enrichment and scoring',
  group: 'company-firmographics',
  bodyName: 'FirmographicsV3Body',
  okName: 'FirmographicsV3Response',
  notFoundName: 'FirmographicsV3NotFound',
  ok: ex.firmographicsV3,
  notFound: ex.firmographicsV3NotFound,
  example: { email: ex.request.email },
  charged: true,
});

export const enrichCompanyV2Doc = leadOp({
  operationId: 'enrichCompanyV2',
  summary: 'Company Firmographics v2 (deprecated: use /v1/enrichment/company)',
  tag: 'Enrichment and scoring',
  group: 'company-firmographics',
  deprecated: true,
  bodyName: 'FirmographicsV2Body',
  okName: 'FirmographicsV2Response',
  notFoundName: 'FirmographicsV2NotFound',
  ok: ex.firmographicsV2,
  example: { email: ex.request.email },
  charged: true,
});

export const scoreAndEnrichLeadDoc = leadOp({
  operationId: 'scoreAndEnrichLead',
  summary: 'Lead Scoring and Firmographics',
  tag: 'Enrichment and scoring',
  group: 'lead-scoring-firmographics',
  bodyName: 'CombinedBody',
  okName: 'CombinedResponse',
  notFoundName: 'CombinedNotFound',
  ok: ex.combined,
  example: { email: ex.request.email, country: 'Netherlands' },
  charged: true,
});

export const scoreLeadDoc = leadOp({
  operationId: 'scoreLead',
  summary: 'Lead Scoring',
  tag: 'Enrichment and scoring',
  group: 'lead-scoring',
  bodyName: 'LeadScoringBody',
  okName: 'LeadScoringResponse',
  notFoundName: 'LeadScoringNotFound',
  ok: ex.leadScoring,
  example: { email: ex.request.email, country: 'Netherlands' },
  charged: false,
});

const body = schema(BatchEnrichmentBody, 'input') as { properties: { items: Record<string, unknown> } };
// The server checks each item on its own and answers a bad one inside the 200: a schema refusing bad items
// would make a validating gateway reject whole batches the server accepts, so any value validates here and
// the well-formed item is the documented first choice.
body.properties.items.items = {
  description:
    'Each item should be `{"email": …}` or `{"domain": …}` (exactly one). Any other JSON value is accepted too and answered as its own result, ' +
    '`{"status": 422, "message": …, "code": "invalid"}` inside the 200: an item that is not an object, has neither or both fields, ' +
    `or a value the single route refuses (not a string, an email over ${MAX_EMAIL_LENGTH} or a domain over ${MAX_DOMAIN_LENGTH} characters)`,
  anyOf: [
    { ...schema(BatchItem, 'input'), title: 'Item', description: 'Exactly one of `email` and `domain`; unknown fields are ignored' },
    { title: 'Any other value', description: 'Answered as its own 422 `invalid` result' },
  ],
};

export const batchEnrichmentDoc = {
  post: {
    operationId: 'enrichCompaniesBatch',
    summary: `Company Firmographics v3 for up to ${MAX_BATCH_ITEMS} emails or domains at once`,
    tags: ['Enrichment and scoring'],
    description:
      'Token of API group `company-firmographics`. One result per item, in order: each is what `POST /v1/enrichment/company` answers for that item, ' +
      'with its status in `status` — 200 `{company, segments}`; 404 the single route\'s not-found body (every field null) with `code: "not_found"`; ' +
      '422 an item that is not `{email}` or `{domain}`; 402 a found company no credit is left for; 503 a charge the state store could not make now. ' +
      'Partial success is normal: the request is 200 whenever its envelope is valid. Charged as the single route, per item: 1 Enrichment API credit ' +
      'per company, free again for the rest of the calendar month (the same company twice in a batch costs one credit); when the credits run out ' +
      'mid-batch the earlier items stay charged and answered and the later found ones are 402. The batch counts as one request against the rate limit. ' +
      `More than ${MAX_BATCH_ITEMS} items, no \`items\` array, or a body that is not a JSON object: 422 for the whole request. JSON only ` +
      '(any charset parameter; gzip, deflate or br Content-Encoding accepted).',
    security: [{ Token: [] }],
    parameters: [PARTNER, REQUEST_ID],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: body,
          example: { items: [{ email: ex.request.email }, { domain: 'unknown.example' }, { email: ex.request.email, domain: ex.request.domain }] },
        },
      },
    },
    responses: {
      200: {
        description: 'One result per item, in order',
        headers: meteredHeaders(200),
        content: json(schema(BatchEnrichmentResponse), {
          results: [
            { status: 200, ...ex.firmographicsV3 },
            { ...ex.firmographicsV3NotFound, status: 404, code: 'not_found' },
            { status: 422, message: 'validation error: send email or domain, not both', code: 'invalid' },
          ],
        }),
      },
      ...errors([400, 401, 403, 413, 415, 422, 429, 503], (s) => meteredHeaders(s)),
    },
  },
};
