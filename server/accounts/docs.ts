/** The OpenAPI operations of the account page's routes (routes.ts), over the shared kit. */
import { admin, adminErrors, idParam, json, pathParam, VISITS_QUERY } from '../openapi/kit.ts';

const FOUND = {
  type: 'object',
  properties: {
    company_id: { type: 'string' },
    name: { type: ['string', 'null'] },
    domain: { type: ['string', 'null'] },
    industry: { type: ['string', 'null'] },
    country_iso_code: { type: ['string', 'null'] },
  },
  required: ['company_id', 'name', 'domain', 'industry', 'country_iso_code'],
};

export const accountSearchDocs = {
  get: admin('searchAccounts', 'Companies of the catalog by id, domain prefix or name prefix (at most 20): the account page’s search box', {
    parameters: [
      idParam('customer'),
      { name: 'q', in: 'query', required: false, schema: { type: 'string', maxLength: 200 }, description: 'A company id, or the start of a domain or a name' },
    ],
    responses: {
      200: {
        description: 'Matching companies: the id first, then domain prefixes, then name prefixes (case-insensitive)',
        content: json({
          type: 'object',
          properties: { customer_id: { type: 'string' }, q: { type: 'string' }, accounts: { type: 'array', items: FOUND, maxItems: 20 } },
          required: ['customer_id', 'q', 'accounts'],
        }),
      },
      ...adminErrors('read', 422),
    },
  }),
};

export const accountDocs = {
  get: admin(
    'getAccount',
    'One account as the customer knows it: firmographics, scores per product with their factors, segments, lists, page views per day, sessions with their pages in order, top pages (query parameters collapsed but the customer’s `kept_query_params`), `engagement` (the web tag’s engaged time per page and custom events in the range, the latest events with their kept properties), webhook deliveries, and `crm`: per connected CRM with a record of the account’s domain, its record ids, owner (`owner_email`, `owner_name`), `stage` (HubSpot lifecycle stage) and `type` (HubSpot type, Salesforce Type) as the CRM sync last read them (`read_at`) and when svc last wrote its values there (`written_at`); empty when no CRM is connected or none has a record; `topics`: the third-party intent topics the customer follows (`followed`) that the account has scores for in the dataset’s last 12 weeks, each with its latest score, `surging` (≥ 60) and its `trend` by week (the week’s Monday, null without a score), surging first, and the dataset’s `latest_week`. `Accept: text/csv` or a `.csv` suffix on the company id: its page views per day and its sessions’ pages as CSV',
    {
      parameters: [
        idParam('customer'),
        pathParam('companyId', 'The company id (catalog); `<id>.csv` for CSV'),
        ...VISITS_QUERY.filter((p) => p.name !== 'segment'),
      ],
      responses: {
        200: { description: 'The account page', content: { ...json({ type: 'object' }), 'text/csv': { schema: { type: 'string' } } } },
        ...adminErrors('read', 422),
      },
    },
  ),
};
