/** The OpenAPI operations of the email digests' routes (routes.ts), over the shared kit. */
import { DigestSettings, DigestSettingsPatch } from '../../core/digest-records.ts';
import { admin, adminErrors, errors, json, RETRY, schema } from '../openapi/kit.ts';

const AUTH_TAG = ['Users and sign-in'];
const HTML = { 'text/html': { schema: { type: 'string' } } };
const TOKEN = {
  name: 'token',
  in: 'query',
  required: true,
  schema: { type: 'string' },
  description: 'The signed unsubscribe token of the mail’s link (one user, this purpose only)',
};

export const digestDocs = {
  getNotifications: admin(
    'getMyNotifications',
    'My email digest settings: off, daily or weekly, the local hour and IANA time zone it is sent at (weekly: Mondays), and its scope (every visiting account, `my_accounts`: those I own in the CRM, or some segments and lists)',
    {
      tags: AUTH_TAG,
      responses: { 200: { description: 'The settings (the defaults until set)', content: json(schema(DigestSettings)) }, ...adminErrors('read', 400) },
    },
  ),
  patchNotifications: admin(
    'updateMyNotifications',
    'Changes my digest settings (each field optional); an unknown time zone, hour, segment or list is 422. Audited',
    {
      tags: AUTH_TAG,
      requestBody: { required: true, content: { 'application/json': { schema: schema(DigestSettingsPatch, 'input') } } },
      responses: { 200: { description: 'The settings after', content: json(schema(DigestSettings)) }, ...adminErrors('write', 422) },
    },
  ),
  preview: admin(
    'previewMyDigest',
    'The HTML of the digest I would get for my last complete period (yesterday, or last week with `period=week` or a weekly digest), or for the period holding `date`, built now; shown even when it would not be sent (nothing to say)',
    {
      tags: AUTH_TAG,
      parameters: [
        {
          name: 'period',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: ['day', 'week'] },
          description: 'Which kind of period (default: my digest’s)',
        },
        {
          name: 'date',
          in: 'query',
          required: false,
          schema: { type: 'string', format: 'date' },
          description: 'The period holding this local date (a week: from its Monday), so far when it is not over; default: the last complete one',
        },
      ],
      responses: { 200: { description: 'The digest’s HTML part', content: HTML }, ...adminErrors('read', 400, 422) },
    },
  ),
  unsubscribePage: {
    operationId: 'digestUnsubscribePage',
    summary: 'The page of a digest’s unsubscribe link: a button that confirms (no sign-in)',
    tags: AUTH_TAG,
    security: [],
    parameters: [TOKEN],
    responses: {
      200: { description: 'The confirm page', content: HTML },
      404: { description: 'The token is not valid (or its user is gone)', content: HTML },
      ...errors([422, 503], (s) => (s === 503 ? RETRY : {})),
    },
  },
  unsubscribe: {
    operationId: 'digestUnsubscribe',
    summary: 'One-click unsubscribe (RFC 8058: `List-Unsubscribe=One-Click`): the token’s user gets no more digests (no sign-in; audited)',
    tags: AUTH_TAG,
    security: [],
    parameters: [TOKEN],
    requestBody: {
      required: false,
      content: {
        'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { 'List-Unsubscribe': { type: 'string', const: 'One-Click' } } } },
      },
    },
    responses: {
      200: { description: 'Unsubscribed (or already)', content: HTML },
      404: { description: 'The token is not valid (or its user is gone)', content: HTML },
      ...errors([400, 413, 415, 422, 503], (s) => (s === 503 ? RETRY : {})),
    },
  },
};
