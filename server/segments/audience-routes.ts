/**
 * A segment as a paid-media audience (./audience.ts: the LinkedIn company list, the signed link):
 *   GET  /admin/api/customers/:id/segments/:segmentId/audience.csv?format=linkedin
 *        → the file (a download: Content-Disposition), with the workspace's credential (`reports:read`) or a
 *          signed link's `expires` and `signature` (no sign-in: what an agency or an upload tool fetches)
 *   POST /admin/api/customers/:id/segments/:segmentId/audience-link  {format, expires_in_hours?}
 *        → {url, format, expires_at}: a signed link to that file (`segments:write`; audited)
 * The members are the Segments API's (`GET /v3/segments/:id/accounts`): the per-snapshot membership index
 * with the intent scores, visits and CRM side the rule reads, gathered per request (./member-facts.ts).
 */
import { create as contentDisposition } from 'content-disposition';
import { z } from 'zod';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { Segment } from '../../core/customer-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { settingKey } from '../auth/signing-key.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import { csvText } from '../http/csv.ts';
import { publicBase } from '../http/public-base.ts';
import { apiRoute, type RouteContext, type RouteDef } from '../http/route-def.ts';
import { authorize, type WorkspaceCall, workspacePrincipal } from '../http/workspace-access.ts';
import { admin, adminErrors, errors, idParam, json, pathParam, schema } from '../openapi/kit.ts';
import {
  AUDIENCE_FORMATS,
  AUDIENCE_KEY_SETTING,
  type AudienceFormat,
  audienceFileName,
  audienceSignature,
  isAudienceFormat,
  LINK_HOURS,
  LINKEDIN_COLUMNS,
  linkedinRow,
  linkRefusal,
} from './audience.ts';
import { listMembers } from './evaluate.ts';
import { gatherMemberFacts } from './member-facts.ts';
import { segmentIndex } from './membership.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;
const PATH = '/admin/api/customers/:id/segments/:segmentId';
/** Rows written per chunk of the download (each chunk waits for the client to take the one before). */
const CHUNK_ROWS = 1_000;
const NO_STORE = { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } as const;

export const AudienceQuery = z.object({
  format: z.string({ error: 'must be given at most once' }).max(64).optional(),
  expires: z.string({ error: 'must be given at most once' }).max(20).optional(),
  signature: z.string({ error: 'must be given at most once' }).max(200).optional(),
});
type AudienceQuery = z.infer<typeof AudienceQuery>;

export const AudienceLinkBody = z
  .object({
    format: z.string().describe(`The file's format: ${AUDIENCE_FORMATS.join(', ')}`),
    expires_in_hours: z
      .number()
      .int()
      .min(1)
      .max(LINK_HOURS.max)
      .default(LINK_HOURS.default)
      .describe(`How long the link works, in hours (1–${LINK_HOURS.max}; default ${LINK_HOURS.default})`),
  })
  .strict();

export const AudienceLink = z.object({
  url: z.string().describe('The download, signed: works without signing in until `expires_at` (anyone holding it can download the file)'),
  format: z.enum(AUDIENCE_FORMATS),
  expires_at: z.string().describe('When the link stops working (ISO 8601, UTC)'),
});

function formatOf(raw: string | undefined): AudienceFormat {
  if (raw === undefined || raw === '') throw new ApiError('blank', `format: give the file's format (${AUDIENCE_FORMATS.map((f) => `format=${f}`).join(', ')})`);
  if (!isAudienceFormat(raw))
    throw new ApiError('invalid', `format: no format ${JSON.stringify(raw.slice(0, 64))}; the formats: ${AUDIENCE_FORMATS.join(', ')}`);
  return raw;
}

function segmentOf(customer: CustomerRecord, raw: string | undefined): Segment {
  const id = /^[1-9][0-9]{0,9}$/.test(raw ?? '') ? Number(raw) : Number.NaN;
  const segment = customer.segments.find((s) => s.id === id);
  if (!segment) throw new ApiError('not_found', `unknown segment ${String(raw).slice(0, 32)} of customer ${customer.id}`);
  return segment;
}

/**
 * Who may download: a signed link's bearer (`expires` and `signature` for exactly this customer, segment
 * and format, not yet expired), else the workspace's own credential and access rule, as any admin route
 * checks them (the operator's token, or a session whose role may read reports of its own customer).
 */
async function checkDownload(ctx: RouteContext<undefined, AudienceQuery>): Promise<void> {
  const { expires, signature, format } = ctx.query;
  if (expires === undefined && signature === undefined) {
    const call: WorkspaceCall = { req: ctx.req, services: ctx.services, body: undefined, principal: null, scope: null };
    call.principal = await workspacePrincipal(call, []);
    await authorize(downloadRoute, call);
    return;
  }
  if (expires === undefined || signature === undefined || !/^[0-9]{1,12}$/.test(expires))
    throw new ApiError('forbidden', 'this download link is incomplete: it needs both expires and signature as they were given');
  const link = { customerId: ctx.req.params.id!, segmentId: ctx.req.params.segmentId!, format: format ?? '', expires: Number(expires) };
  const refusal = linkRefusal(await settingKey(ctx.services.store, AUDIENCE_KEY_SETTING), link, signature, Date.now());
  if (refusal === 'forged') throw new ApiError('forbidden', 'this download link is not valid: its signature does not match (ask for a new link)');
  if (refusal === 'expired') throw new ApiError('forbidden', `this download link expired at ${new Date(link.expires * 1000).toISOString()}: ask for a new one`);
}

/** The file: the template's header, then one row per member account (company id order), written a chunk at a time. */
async function* audienceRows(rows: Iterable<string[]>): AsyncGenerator<string> {
  yield csvText([[...LINKEDIN_COLUMNS]]);
  let chunk: string[][] = [];
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length === CHUNK_ROWS) {
      yield csvText(chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) yield csvText(chunk);
}

const SEGMENT_ID = pathParam('segmentId', 'The segment id (a positive integer, per customer)');
const FORMAT_PARAM = {
  name: 'format',
  in: 'query',
  required: true,
  schema: { type: 'string', enum: [...AUDIENCE_FORMATS] },
  description: '`linkedin`: a LinkedIn Matched Audiences company list (Campaign Manager’s company-list template columns)',
};
const docs = {
  download: {
    ...admin('downloadSegmentAudience', "A segment's member accounts as a paid-media audience file (LinkedIn company list), as a download", {
      description: [
        `The columns of LinkedIn's company-list template, in its order and spelling: ${LINKEDIN_COLUMNS.map((c) => `\`${c}\``).join(', ')}. svc fills \`companyname\` (the company's name), \`companywebsite\` and \`companyemaildomain\` (its primary domain), \`industry\`, \`city\`, \`state\`, \`companycountry\` (the country's name) and \`zipcode\`; \`linkedincompanypageurl\` and \`stocksymbol\` are blank (the catalog has neither). One row per member account, in company id order — the accounts \`GET /v3/segments/:segmentId/accounts\` lists; every cell a spreadsheet would run as a formula starts with \`'\`.`,
        'Sent with the workspace credential (the admin token, or a session whose role may read reports: every role), or without one through a signed link (`POST …/audience-link`): its `expires` and `signature` cover this customer, segment and format. A link whose signature does not match (forged, or any part altered) or that has expired is 403 `forbidden`, the message saying which.',
      ].join('\n\n'),
      parameters: [
        idParam('customer'),
        SEGMENT_ID,
        FORMAT_PARAM,
        {
          name: 'expires',
          in: 'query',
          required: false,
          schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
          description: 'A signed link’s expiry (Unix seconds)',
        },
        { name: 'signature', in: 'query', required: false, schema: { type: 'string' }, description: 'A signed link’s signature (as the link gives it)' },
      ],
      responses: {
        200: {
          description: 'The file (streamed), with `Content-Disposition: attachment`',
          headers: {
            'Content-Disposition': { schema: { type: 'string' }, description: 'attachment; filename=linkedin-audience-<customer>-segment-<id>-<day>.csv' },
          },
          content: {
            'text/csv': {
              schema: { type: 'string' },
              example: `${LINKEDIN_COLUMNS.join(',')}\nVelaris Systems,velarissystems.com,velarissystems.com,,,Software,Saint Paul,Minnesota,United States,55101\n`,
            },
          },
        },
        ...adminErrors('read', 400, 422),
        ...errors([400, 422], () => ({}), {
          400: { codes: ['blank'], description: 'No `format` (`blank`)' },
          422: { codes: ['invalid'], description: 'A `format` svc does not write, or a query parameter given twice (`invalid`)' },
        }),
      },
    }),
    // The credential is optional: a signed link carries its own proof in the query.
    security: [{ AdminBearer: [] }, { Session: [] }, {}],
  },
  link: admin('createSegmentAudienceLink', "A signed, expiring link to a segment's audience file (a download without signing in)", {
    description: `The link names the customer, the segment and the format and works until \`expires_at\` (\`expires_in_hours\`, default ${LINK_HOURS.default}, at most ${LINK_HOURS.max}): an HMAC-SHA256 over those values and the expiry under a key the deployment keeps in its state store (every node checks it). Anyone holding the link can download the file until then — share it as a credential. Each link made is in the audit log.`,
    parameters: [idParam('customer'), SEGMENT_ID],
    requestBody: { required: true, content: json(schema(AudienceLinkBody, 'input')) },
    responses: { 201: { description: 'The link', content: json(schema(AudienceLink)) }, ...adminErrors('write', 422) },
  }),
};

const downloadRoute = apiRoute<undefined, AudienceQuery>({
  method: 'GET',
  path: `${PATH}/audience.csv`,
  // Authenticated in the handler (checkDownload): a signed link, else the workspace credential with this
  // access, checked by the admin routes' own rules (the pipeline authorizes only `admin` routes).
  auth: { kind: 'public' },
  access: { permission: 'reports:read', customer: CUSTOMER },
  headers: NO_STORE,
  query: AudienceQuery,
  doc: docs.download,
  async handler(ctx) {
    await checkDownload(ctx);
    const format = formatOf(ctx.query.format);
    const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
    const segment = segmentOf(customer, ctx.req.params.segmentId);
    const { catalog } = ctx.services.dataset.current;
    const index = await segmentIndex(catalog);
    const now = new Date();
    const crm = ctx.services.crm?.deps.crm;
    const { visits, engagement } = ctx.services.recorder;
    const facts = await gatherMemberFacts({ catalog, visits, crm, engagement }, index, customer, [segment.match], now);
    const members = index.membersOf(segment.match, listMembers(customer), facts);
    const rows = function* () {
      for (const row of members) {
        const company = catalog.company(index.companyId(row));
        if (company) yield linkedinRow(company);
      }
    };
    return {
      status: 200,
      stream: audienceRows(rows()),
      type: 'text/csv; charset=utf-8',
      headers: { 'Content-Disposition': contentDisposition(audienceFileName(customer.id, segment.id, format, now)) },
    };
  },
});

export const audienceRoutes: RouteDef[] = [
  downloadRoute,
  adminRoute({
    method: 'POST',
    path: `${PATH}/audience-link`,
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: ADMIN_JSON_BODY,
    doc: docs.link,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const segment = segmentOf(customer, ctx.req.params.segmentId);
      const body = parseRecord(AudienceLinkBody, ctx.body);
      const format = formatOf(body.format);
      const expires = Math.floor(Date.now() / 1000) + body.expires_in_hours * 3600;
      const link = { customerId: customer.id, segmentId: String(segment.id), format, expires };
      const signature = audienceSignature(await settingKey(ctx.services.store, AUDIENCE_KEY_SETTING), link);
      const query = new URLSearchParams({ format, expires: String(expires), signature });
      const url = `${publicBase(ctx)}/admin/api/customers/${encodeURIComponent(customer.id)}/segments/${segment.id}/audience.csv?${query}`;
      const expiresAt = new Date(expires * 1000).toISOString();
      await ctx.audit({ customer: customer.id, action: 'segment.audience_link', target: String(segment.id), after: { format, expires_at: expiresAt } });
      return { status: 201, body: { url, format, expires_at: expiresAt } };
    },
  }),
];
