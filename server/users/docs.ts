/** The OpenAPI operations of a customer's users, single sign-on settings and audit log (routes.ts), over the shared kit. */
import { ROLES } from '../../core/roles.ts';
import { admin, adminErrors, idParam, json } from '../openapi/kit.ts';

const AUTH_TAG = ['Users and sign-in'];
const roleSchema = { enum: [...ROLES] };
const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    customer_id: { type: 'string' },
    email: { type: 'string' },
    role: roleSchema,
    password_set: { type: 'boolean' },
    sso: { type: 'boolean' },
    created_at: { type: 'string' },
    last_login_at: { type: ['string', 'null'] },
  },
  required: ['id', 'customer_id', 'email', 'role', 'password_set', 'sso', 'created_at', 'last_login_at'],
};
const linkSchema = {
  type: 'object',
  properties: {
    url: {
      type: 'string',
      description:
        "The one-time link (the console, with the token in the fragment). Absent when a user invites an address outside the customer's single sign-on allowed_domains: then it is only mailed",
    },
    token: { type: 'string', description: 'Absent when url is' },
    expires_at: { type: 'string' },
    mailed: { type: 'boolean', description: 'Whether it was also mailed (SVC_SMTP_URL)' },
  },
  required: ['expires_at', 'mailed'],
};
const ssoSchema = {
  type: 'object',
  properties: {
    issuer: { type: 'string' },
    client_id: { type: 'string' },
    allowed_domains: { type: 'array', items: { type: 'string' } },
    default_role: roleSchema,
    display_name: { type: 'string' },
    email_verified_optional: {
      type: 'boolean',
      description: 'true: an ID token without email_verified is accepted (providers that never send it); false or absent: email_verified must be true',
    },
    customer_id: { type: 'string' },
  },
  required: ['issuer', 'client_id', 'allowed_domains', 'default_role', 'display_name'],
};
const USER_ID = { name: 'userId', in: 'path', required: true, schema: { type: 'string' }, description: 'The user id' };

export const userDocs = {
  invite: admin('inviteUser', 'Invite a person: a one-time link to set their password (72 h)', {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { email: { type: 'string', format: 'email' }, role: roleSchema },
            required: ['email', 'role'],
          },
        },
      },
    },
    responses: { 201: { description: 'The link, shown once', content: json(linkSchema) }, ...adminErrors('write', 409, 422) },
  }),
  list: admin('listUsers', "A customer's users", {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    responses: { 200: { description: 'Users', content: json({ type: 'array', items: userSchema }) }, ...adminErrors('read') },
  }),
  setRole: admin('setUserRole', "Change a user's role (their sessions end)", {
    tags: AUTH_TAG,
    parameters: [idParam('customer'), USER_ID],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { type: 'object', properties: { role: roleSchema }, required: ['role'] } },
      },
    },
    responses: { 200: { description: 'The user', content: json(userSchema) }, ...adminErrors('write', 409, 422) },
  }),
  remove: admin('removeUser', 'Remove a user (their sessions end)', {
    tags: AUTH_TAG,
    parameters: [idParam('customer'), USER_ID],
    responses: { 204: { description: 'Removed' }, ...adminErrors('delete', 409) },
  }),
  resetPassword: admin('resetUserPassword', 'A one-time link for the user to set a new password (72 h)', {
    tags: AUTH_TAG,
    parameters: [idParam('customer'), USER_ID],
    responses: { 201: { description: 'The link, shown once', content: json(linkSchema) }, ...adminErrors('write') },
  }),
  getSso: admin('getSso', "The customer's single sign-on provider (never its client secret)", {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    responses: { 200: { description: 'The provider', content: json(ssoSchema) }, ...adminErrors('read') },
  }),
  putSso: admin('setSso', "Set the customer's OpenID Connect provider", {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { ...ssoSchema.properties, client_secret: { type: 'string' } },
            required: ['issuer', 'client_id', 'client_secret', 'allowed_domains', 'default_role', 'display_name'],
          },
        },
      },
    },
    responses: { 200: { description: 'The provider', content: json(ssoSchema) }, ...adminErrors('write', 409, 422) },
  }),
  deleteSso: admin('removeSso', "Remove the customer's single sign-on provider", {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    responses: { 204: { description: 'Removed' }, ...adminErrors('delete') },
  }),
  audit: admin('getAuditLog', 'The audit log: every change and sign-in, oldest first (`Accept: text/csv` for CSV)', {
    tags: AUTH_TAG,
    parameters: [
      idParam('customer'),
      { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'First UTC day (default: 90 days before `to`)' },
      { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'Last UTC day (default: today)' },
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 10000, default: 1000 } },
    ],
    responses: {
      200: {
        description: 'Events',
        content: {
          ...json({
            type: 'object',
            properties: {
              events: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    at: { type: 'string' },
                    actor: { type: 'string' },
                    ip: { type: ['string', 'null'] },
                    action: { type: 'string' },
                    target: { type: ['string', 'null'] },
                    before: { type: ['object', 'null'] },
                    after: { type: ['object', 'null'] },
                  },
                  required: ['id', 'at', 'actor', 'action'],
                },
              },
            },
            required: ['events'],
          }),
          'text/csv': { schema: { type: 'string' } },
        },
      },
      ...adminErrors('read', 422),
    },
  }),
};
