/** The OpenAPI operations of the admin API's customer, credit, token and tag routes (routes.ts), over the shared kit. */
import examples from '../openapi/examples.json' with { type: 'json' };
import { admin, adminErrors, idParam, json, jsonBody, pathParam, ref } from '../openapi/kit.ts';

const ex = examples;
const TAG_ID = pathParam('tagId', 'The tag id');

export const customersDocs = {
  get: admin('listCustomers', 'List customers', {
    responses: { 200: { description: 'Customers', content: json({ type: 'array', items: ref('Customer') }, [ex.customer]) }, ...adminErrors('read') },
  }),
  post: admin('createCustomer', 'Create a customer (and its Lead Scoring token when it has the advanced package)', {
    requestBody: jsonBody('CustomerSeed'),
    responses: {
      201: { description: "Created; `lead_scoring_token` holds the Lead Scoring token's secret, shown only here", content: json(ref('CreatedCustomer')) },
      ...adminErrors('write', 409, 422),
    },
  }),
};

export const customerDocs = {
  get: admin('getCustomer', 'A customer', {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'The customer', content: json(ref('Customer'), ex.customer) }, ...adminErrors('read', 404) },
  }),
  patch: admin('updateCustomer', 'Change a customer: only the fields given', {
    parameters: [idParam('customer')],
    requestBody: jsonBody('CustomerPatch'),
    responses: {
      200: {
        description: 'The customer; `lead_scoring_token` is set when this change created the Lead Scoring token',
        content: json(ref('CreatedCustomer')),
      },
      ...adminErrors('write', 404, 422),
    },
  }),
};

export const creditsDocs = {
  get: admin('getCredits', "A customer's credit balances and usage", {
    parameters: [idParam('customer')],
    responses: {
      200: {
        description: 'Balances per pool for the contract year; usage per API and month',
        content: json(
          {
            type: 'object',
            properties: {
              customer: { type: 'string' },
              contract_start: { type: 'string' },
              balances: { type: 'array', items: { type: 'object' } },
              usage: { type: 'array', items: { type: 'object' } },
            },
            required: ['customer', 'contract_start', 'balances', 'usage'],
          },
          ex.credits,
        ),
      },
      ...adminErrors('read', 404),
    },
  }),
};

export const tokensDocs = {
  get: admin('listTokens', 'List tokens (secrets are never shown again)', {
    parameters: [{ name: 'customer', in: 'query', required: false, schema: { type: 'string' }, description: "Only this customer's tokens" }],
    responses: { 200: { description: 'Tokens with rotation advice', content: json({ type: 'array', items: ref('Token') }) }, ...adminErrors('read') },
  }),
  post: admin('createToken', 'Create a token: the secret is in this answer only', {
    requestBody: jsonBody('NewToken'),
    responses: { 201: { description: 'Created', content: json(ref('TokenWithSecret')) }, ...adminErrors('write', 404, 422) },
  }),
};

export const tokenDocs = {
  get: admin('getToken', 'A token', {
    parameters: [idParam('token')],
    responses: { 200: { description: 'The token', content: json(ref('Token')) }, ...adminErrors('read', 404) },
  }),
  delete: admin('deleteToken', 'Delete a token', {
    parameters: [idParam('token')],
    responses: { 204: { description: 'Deleted' }, ...adminErrors('delete', 404) },
  }),
};

/** The token actions (`POST /admin/api/tokens/:id/<action>`): they take no body. */
export const tokenActionDocs = (action: 'deactivate' | 'activate' | 'rotate') => ({
  post: admin(
    `${action}Token`,
    action === 'rotate' ? 'Rotate a token: a new secret, in this answer only' : `${action[0]!.toUpperCase()}${action.slice(1)} a token`,
    {
      description: 'Takes no body: send it without one (with or without a Content-Type).',
      parameters: [idParam('token')],
      responses: {
        200: { description: 'The token', content: json(ref(action === 'rotate' ? 'TokenWithSecret' : 'Token')) },
        ...adminErrors('write', 404),
      },
    },
  ),
});

export const tagsDocs = {
  get: admin('listTags', 'List web tags', {
    parameters: [{ name: 'customer', in: 'query', required: false, schema: { type: 'string' }, description: "Only this customer's tags" }],
    responses: { 200: { description: 'Tags', content: json({ type: 'array', items: ref('Tag') }, ex.tags) }, ...adminErrors('read') },
  }),
  post: admin('createTag', 'Create a web tag', {
    requestBody: jsonBody('NewTag'),
    responses: { 201: { description: 'Created', content: json(ref('Tag')) }, ...adminErrors('write', 404, 409, 422) },
  }),
};

export const tagDocs = {
  get: admin('getTag', 'A web tag', {
    parameters: [TAG_ID],
    responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors('read', 404) },
  }),
  patch: admin('updateTag', 'Change a tag: only the fields given (allowed domains, limits, answers, disabled, settings)', {
    parameters: [TAG_ID],
    requestBody: jsonBody('TagPatch'),
    responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors('write', 404, 422) },
  }),
  delete: admin('deleteTag', 'Delete a web tag: its id answers as unknown from then on (a disabled tag, PATCH `disabled`, can come back)', {
    parameters: [TAG_ID],
    responses: { 204: { description: 'Deleted' }, ...adminErrors('delete', 404) },
  }),
};

export const tagSettingsDocs = {
  patch: admin('replaceTagSettings', "Replace a tag's settings (inlined into /tag/v1/<tagId>.js; absent keys keep the bundle's defaults)", {
    parameters: [idParam('tag')],
    requestBody: jsonBody('TagSettings'),
    responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors('write', 404, 422) },
  }),
};
