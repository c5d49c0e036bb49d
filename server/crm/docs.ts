/** The OpenAPI operations of the CRM sync's routes (routes.ts), over the shared kit. */
import { z } from 'zod';
import { CrmRunRecord } from '../../core/crm-records.ts';
import { admin, adminErrors, idParam, json, pathParam, schema } from '../openapi/kit.ts';
import { ConnectHubSpot, ConnectSalesforce, CrmConnectionView, CrmPatch, SyncBody } from './schema.ts';

const PROVIDER = pathParam('provider', '`hubspot` or `salesforce`');
const PARAMS = [idParam('customer'), PROVIDER];

const Check = z.object({
  scopes: z.array(z.string()),
  objects: z.array(z.string()),
  writable_fields: z.array(z.string()),
  missing_fields: z.array(z.string()),
  created_fields: z.array(z.string()),
});
const Preview = z.object({
  run: CrmRunRecord,
  accounts: z.array(
    z.object({
      company_id: z.string(),
      name: z.string().nullable(),
      domain: z.string().nullable(),
      crm_ids: z.array(z.string()),
      values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    }),
  ),
});

export const crmDocs = {
  get: admin(
    'listCrmConnections',
    'The customer’s CRM connections (HubSpot, Salesforce): status, mapping, what waits to be synced, the last run; never a secret',
    {
      parameters: [idParam('customer')],
      responses: {
        200: {
          description: 'The connections',
          content: json(schema(z.object({ customer_id: z.string(), providers: z.array(z.string()), connections: z.array(CrmConnectionView) }))),
        },
        ...adminErrors('read'),
      },
    },
  ),
};

export const crmConnectionDocs = {
  put: admin(
    'connectCrm',
    'Connects a CRM: HubSpot with a private app’s access token (scopes `crm.objects.companies.read`, `crm.objects.companies.write`, `crm.schemas.companies.read`, `crm.schemas.companies.write`, `crm.objects.owners.read`); Salesforce with a connected app’s client credentials (OAuth 2.0 client-credentials flow) and the org’s My Domain URL. The credential is tested first (HubSpot: svc’s property group and properties are created when missing); a refused one is 422 with the provider’s message. The secret is never answered again',
    {
      parameters: PARAMS,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { oneOf: [schema(ConnectHubSpot, 'input'), schema(ConnectSalesforce, 'input')] } } },
      },
      responses: {
        200: { description: 'The connection replaced', content: json(schema(z.object({ connection: CrmConnectionView, check: Check }))) },
        201: { description: 'The connection made', content: json(schema(z.object({ connection: CrmConnectionView, check: Check }))) },
        ...adminErrors('write', 422),
      },
    },
  ),
  get: admin('getCrmConnection', 'One connection with its last 10 runs', {
    parameters: PARAMS,
    responses: {
      200: { description: 'The connection', content: json(schema(CrmConnectionView.extend({ runs: z.array(CrmRunRecord) }))) },
      ...adminErrors('read'),
    },
  }),
  patch: admin(
    'updateCrmConnection',
    'Changes the mapping (value key → a field svc owns, or null: not written), `create_missing`, or pauses / resumes the sync (`status`; resuming clears “needs attention”)',
    {
      parameters: PARAMS,
      requestBody: { required: true, content: { 'application/json': { schema: schema(CrmPatch, 'input') } } },
      responses: { 200: { description: 'The connection', content: json(schema(CrmConnectionView)) }, ...adminErrors('write', 422) },
    },
  ),
  delete: admin('disconnectCrm', 'Removes the connection, its secret, what waited to be synced and its runs (the CRM’s records keep what was written)', {
    parameters: PARAMS,
    responses: { 204: { description: 'Removed' }, ...adminErrors('delete') },
  }),
};

export const crmTestDocs = {
  post: admin(
    'testCrmConnection',
    'Tests the stored credential: what it may do (scopes, objects, the fields svc can write and those missing); a refused credential answers ok: false with the provider’s message and the connection needs attention',
    {
      parameters: PARAMS,
      responses: {
        200: { description: 'The test', content: json(schema(z.object({ ok: z.boolean(), message: z.string().nullable(), check: Check.nullable() }))) },
        ...adminErrors('write'),
      },
    },
  ),
};

export const crmSyncDocs = {
  post: admin(
    'syncCrm',
    'Starts a run now: incremental (no body: the accounts whose svc data changed) or `full` (every account svc knows of the customer, written even if unchanged); `dry_run` answers what would be written (at most 1,000 accounts listed) without writing. 409 while a run of the connection is under way (on any node), or when it is paused or needs attention',
    {
      parameters: PARAMS,
      requestBody: { required: false, content: { 'application/json': { schema: schema(SyncBody, 'input') } } },
      responses: {
        200: { description: 'The dry run', content: json(schema(Preview)) },
        202: { description: 'The run started (follow it at `Location`)', content: json(schema(z.object({ run: CrmRunRecord }))) },
        ...adminErrors('write', 409, 422),
      },
    },
  ),
};

export const crmRunsDocs = {
  get: admin('listCrmRuns', 'The connection’s runs, newest first: counts and per-record errors', {
    parameters: [...PARAMS, { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 50, default: 20 } }],
    responses: { 200: { description: 'The runs', content: json(schema(z.object({ runs: z.array(CrmRunRecord) }))) }, ...adminErrors('read', 422) },
  }),
};

export const crmRunDocs = {
  get: admin('getCrmRun', 'One run', {
    parameters: [...PARAMS, pathParam('runId', 'The run id')],
    responses: { 200: { description: 'The run', content: json(schema(CrmRunRecord)) }, ...adminErrors('read') },
  }),
};
