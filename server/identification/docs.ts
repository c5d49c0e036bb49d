/** The OpenAPI operations of the Company Identification route (route.ts), over the shared kit. */
import examples from '../openapi/examples.json' with { type: 'json' };
import { CORS, errors, meteredHeaders, PARTNER, PREFLIGHT_ALLOWED, REQUEST_ID, RETRY, ref, STATUS_TEXT, SVC_COOKIE, schema } from '../openapi/kit.ts';
import { IdentificationQuery, VISITOR_USER_AGENT_HEADER } from './schema.ts';

const ex = examples;
const VISITOR_UA = {
  name: VISITOR_USER_AGENT_HEADER,
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description:
    "Token mode with `?ip=` only: the visitor's own User-Agent, for bot detection (the request's User-Agent is the integration's, so it is not classified then)",
};
const identificationParams = [
  {
    name: 'ip',
    in: 'query',
    required: false,
    schema: schema(IdentificationQuery.shape.ip.unwrap()),
    description:
      "Token mode: the IPv4 or IPv6 address to identify (default: the caller; IPv6 is our extension to the spec, IPv4-mapped IPv6 and NAT64 `64:ff9b::/96` are looked up as the IPv4 address they carry). Exactly a canonical dotted quad or an IPv6 address. Text that is plainly no address (`garbage`, `999.1.1.1`) is the spec's invalid IP: 200 with every company variable blank. An address spelled ambiguously (a port, brackets, a leading zero, an integer, hex or short quads, a CIDR, spaces, a zone id, too many IPv6 groups, empty) or longer than 64 characters: 422.",
    example: ex.request.ip,
  },
  {
    name: 'test_ip',
    in: 'query',
    required: false,
    schema: schema(IdentificationQuery.shape.test_ip.unwrap()),
    description:
      'Demo tags in demo mode only (tag mode): a sample address to identify, read by the same rule as `ip` (422 for an ambiguously spelled address).',
  },
  PARTNER,
  SVC_COOKIE,
  VISITOR_UA,
  REQUEST_ID,
];
const identificationStatuses = [400, 401, 402, 403, 422, 429, 503];
const identificationDescription =
  'Tag mode (`?tag=`, from a browser: the visitor is the caller) or token mode (`Authorization: Token`, `?ip=` names the address). 1 identification credit per `Match`; `Non-actionable Match` and `No Match` are free.';

export const identificationDocs = {
  get: {
    operationId: 'identifyCompany',
    summary: 'Identify the company behind an IP address',
    tags: ['Company Identification'],
    description: identificationDescription,
    security: [{ Token: [] }, { TagMode: [] }],
    parameters: identificationParams,
    responses: {
      200: {
        description: 'The company (or a blank company with `No Match` / `Non-actionable Match`)',
        headers: meteredHeaders(200, CORS),
        content: {
          'application/json': {
            schema: ref('IdentificationResponse'),
            examples: { match: { value: ex.identification }, noMatch: { value: ex.identificationNoMatch } },
          },
        },
      },
      ...errors(identificationStatuses, (s) => meteredHeaders(s, s === 401 || s === 403 || s === 503 ? {} : CORS)),
    },
  },
  head: {
    operationId: 'identifyCompanyHead',
    summary: 'The headers of the identification answer, without a body: never charged',
    tags: ['Company Identification'],
    description: `${identificationDescription} A HEAD exports no record, so it is never charged (nor refused for want of credit).`,
    security: [{ Token: [] }, { TagMode: [] }],
    parameters: identificationParams,
    responses: Object.fromEntries(
      [200, 400, 401, 403, 422, 429, 503].map((s) => [
        String(s),
        {
          description: s === 200 ? 'As GET, without the body' : STATUS_TEXT[s],
          headers: meteredHeaders(s, s === 401 || s === 403 || s === 503 ? {} : CORS),
        },
      ]),
    ),
  },
  options: {
    operationId: 'identificationPreflight',
    summary: 'CORS preflight (a browser using a domain-restricted token)',
    description: 'Allowed when the tag named in `?tag=` (or, without one, an active domain-restricted identification token or any web tag) allows the Origin.',
    tags: ['Company Identification'],
    security: [],
    parameters: [{ name: 'tag', in: 'query', required: false, schema: { type: 'string' }, description: 'The web tag the page uses' }],
    responses: {
      204: { description: 'Allowed methods and headers for the Origin', headers: PREFLIGHT_ALLOWED },
      ...errors([403, 503], (s) => (s === 503 ? RETRY : {})),
    },
  },
};
