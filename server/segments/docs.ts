/** The OpenAPI operations of the segments routes, admin and Segments API (routes.ts), over the shared kit. */
import { admin, adminErrors, errors, idParam, json, jsonBody, meteredHeaders, pathParam, REQUEST_ID, ref, type Variant } from '../openapi/kit.ts';

const SEGMENT_ID = pathParam('segmentId', 'The segment id (a positive integer, per customer)');

/** The rule (core/customer-records.ts SegmentMatch), for the operations that take one. */
const SEGMENT_RULE = [
  'The rule (`match`): each present field is one condition — a catalog field (`industry`, `employee_range`, `country_iso_code`, `sic_prefix` …) holds when one of its values matches (ignoring case); `in_list` when the account is in one of the lists named; `intent` `{product, stages?, min_score?}` when the account’s buying stage for one of the customer’s products is one of `stages` and/or its intent score (the one identification answers) is at least `min_score`; `visited` `{path, days}` when the account viewed a page matching `path` (`*` = any characters, without the query string, ignoring case; starts with `/`) in the last `days` UTC days (1–400); `page_views` `{min, days}` when its page views in the last `days` days are at least `min`; `crm_owner` (owner emails, or `any` / `none`) when the account’s owner in a connected CRM (HubSpot, Salesforce, as the CRM sync read it back) is one of the emails (ignoring case), when it has one (`any`) or has none (`none`); `crm_stage` `{in?, not_in?}` when the account’s CRM stage or type (HubSpot lifecycle stage or type, Salesforce Type; ignoring case, whole values) is one of `in` and none is one of `not_in` — an account no CRM record matched has no stage, so `{"not_in":["customer"]}` keeps everyone but customers; `lookalike` `{list | segment | companies, min_score}` when the account’s firmographic similarity to the seed (one of the customer’s lists, one of its segments, or company ids; a score from 0 to 1, the method in docs/console.md “Lookalike accounts”) is at least `min_score`, the seed’s own accounts never included — a segment cannot be seeded by itself (422); `engaged` `{path, min_seconds, days}` when the seconds the account’s visitors had pages matching `path` visible (the web tag’s engaged time; `path` as `visited`’s) in the last `days` days are at least `min_seconds` (1–86,400); `event` `{name, min_count, days}` when the account sent the custom event `name` (`svc(\'track\', name, …)`) at least `min_count` times in the last `days` days.',
  '`topic` `{name, min_score?, weeks?}` holds when the account’s third-party intent score on the topic `name` (ignoring case; one of the dataset’s topics, else 422 — GET /admin/api/customers/:id/topics/names) reached `min_score` (0–100, default 60: a surge) in at least one of the dataset’s last `weeks` weeks (1–52, default 1), counted back from the latest week the dataset holds.',
  '`op` combines them: `all` (default) or `any`. `groups` (at most 20, top level only) are conditions of their own, each with its own `op` and at least one condition. A rule without conditions matches nothing.',
  'Example: `{"op":"all","industry":["Software","SaaS"],"country_iso_code":["US"],"groups":[{"op":"any","visited":{"path":"/pricing*","days":14},"intent":{"product":"crm","stages":["Decision","Purchase"]}}]}`.',
  'A bad rule is a 422 naming the field (a group inside a group, an empty group, a path not starting with `/`, a `crm_owner` value that is no email, `any` or `none`, a list or product the customer does not have).',
].join('\n\n');

export const segmentsDocs = {
  get: admin('listSegments', "A customer's segments", {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'Segments, in creation order', content: json({ type: 'array', items: ref('Segment') }) }, ...adminErrors('read', 404) },
  }),
  post: admin('createSegment', 'Create a segment: its id is given here, never reused after a delete', {
    description: `The segment is part of identification, enrichment and tag answers on every node within a second. Names are unique per customer (case-insensitive): 409.\n\n${SEGMENT_RULE}`,
    parameters: [idParam('customer')],
    requestBody: jsonBody('NewSegment'),
    responses: { 201: { description: 'Created', content: json(ref('Segment')) }, ...adminErrors('write', 404, 409, 422) },
  }),
};

export const segmentDocs = {
  get: admin('getSegment', 'A segment', {
    parameters: [idParam('customer'), SEGMENT_ID],
    responses: { 200: { description: 'The segment', content: json(ref('Segment')) }, ...adminErrors('read', 404) },
  }),
  patch: admin('updateSegment', 'Rename a segment or change its rule (its id stays)', {
    description: SEGMENT_RULE,
    parameters: [idParam('customer'), SEGMENT_ID],
    requestBody: jsonBody('SegmentPatch'),
    responses: { 200: { description: 'The segment', content: json(ref('Segment')) }, ...adminErrors('write', 404, 409, 422) },
  }),
  delete: admin('deleteSegment', 'Delete a segment (its id is never given again)', {
    parameters: [idParam('customer'), SEGMENT_ID],
    responses: { 204: { description: 'Deleted' }, ...adminErrors('delete', 404) },
  }),
};

export const segmentPreviewDocs = {
  post: admin('previewSegment', 'How many accounts of the catalog a rule matches, and the first 20 of them (nothing is saved)', {
    description: `Intent conditions are evaluated on every company's intent score (at most 10 minutes old over the catalog; identification scores the visitor's account at the moment), behaviour conditions on the accounts that visited the customer's site.\n\n${SEGMENT_RULE}`,
    parameters: [idParam('customer')],
    requestBody: jsonBody('SegmentPreviewBody'),
    responses: { 200: { description: 'The preview', content: json(ref('SegmentPreview')) }, ...adminErrors('write', 404, 422) },
  }),
};

const segmentsApi = (
  operationId: string,
  summary: string,
  description: string,
  parameters: unknown[],
  statuses: number[],
  okDescription: string,
  body: string,
  variants: Partial<Record<number, Variant>> = {},
) => ({
  get: {
    operationId,
    summary,
    description: `${description} Token group \`segments\` (granted per customer by the operator). Free (never charged); rate limited like every token.`,
    tags: ['Segments API'],
    security: [{ Token: [] }],
    parameters: [...parameters, REQUEST_ID],
    responses: {
      200: { description: okDescription, headers: meteredHeaders(200), content: json(ref(body)) },
      ...errors(statuses, (s) => meteredHeaders(s), variants),
    },
  },
});

export const segmentsApiDocs = segmentsApi(
  'listSegmentsApi',
  "The customer's segments with their sizes",
  'Each segment with the number of accounts of the catalog it matches.',
  [],
  [401, 403, 429, 503],
  'Segments',
  'SegmentsList',
);

export const segmentAccountsDocs = segmentsApi(
  'listSegmentAccounts',
  "A segment's member accounts, a page at a time",
  'Members in a stable order (company id); pass `next_cursor` as `cursor` for the next page.',
  [
    SEGMENT_ID,
    { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, description: 'Accounts per page' },
    { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'The `next_cursor` of the previous page (opaque)' },
  ],
  [401, 403, 404, 422, 429, 503],
  'A page of accounts',
  'SegmentAccounts',
);

export const segmentMembershipDocs = segmentsApi(
  'getSegmentMembership',
  "Which segments a domain's company is in",
  "The same segment ids Company Identification answers for that company; names only when the token's `segment_names` setting is on. A domain no company has: 404.",
  [{ name: 'domain', in: 'query', required: true, schema: { type: 'string' }, description: "The company's domain (`example.com`)" }],
  [400, 401, 403, 404, 422, 429, 503],
  'The company and its segments',
  'SegmentMembership',
  // The spec's 400 "required fields are blank": the one 400 this route answers (a domain that is no domain name: 422 `invalid`).
  { 400: { codes: ['blank'], description: 'The domain is missing, empty or only spaces (`blank`)' } },
);
