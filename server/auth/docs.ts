/** The OpenAPI operations of sign-in, sessions (routes.ts) and single sign-on (sso-routes.ts), over the shared kit. */
import { admin, adminErrors, errors, header, idParam, json, RETRY } from '../openapi/kit.ts';

const LOGIN_BODY = {
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { email: { type: 'string', format: 'email', maxLength: 254 }, password: { type: 'string', maxLength: 256 } },
        required: ['email', 'password'],
      },
    },
  },
};
const SET_COOKIE = {
  'Set-Cookie': {
    description: 'The session cookie (`svc_session`, or `__Host-svc_session` over HTTPS): HttpOnly, SameSite=Lax',
    required: true,
    schema: { type: 'string' },
  },
};
const AUTH_TAG = ['Users and sign-in'];
const sessionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    created_at: { type: 'string' },
    last_seen_at: { type: 'string' },
    expires_at: { type: 'string' },
    ip: { type: ['string', 'null'] },
    user_agent: { type: ['string', 'null'] },
    method: { type: 'string' },
    current: { type: 'boolean' },
  },
  required: ['id', 'created_at', 'last_seen_at', 'expires_at', 'current'],
};

export const authDocs = {
  login: {
    operationId: 'signIn',
    summary: 'Sign in with email and password: a session cookie',
    description:
      'Any wrong pair is the same 401, an unknown email included. Too many failures for the account (10 in 15 minutes) or from the address (30 in 15 minutes; an IPv6 address counts under its /64), counted across all nodes: 429 with Retry-After.',
    tags: AUTH_TAG,
    security: [],
    requestBody: LOGIN_BODY,
    responses: {
      204: { description: 'Signed in', headers: SET_COOKIE },
      ...errors([400, 401, 403, 413, 415, 422, 429, 503], (s) => (s === 429 || s === 503 ? RETRY : {})),
    },
  },
  accept: {
    operationId: 'acceptInvitation',
    summary: 'Take an invitation or password-reset link: set the password, get a session cookie',
    description:
      'The token of the link (valid 72 h, once). Passwords: at least 12 characters; the most common ones are refused (422). A new password ends every other session and every other reset link of the account.',
    tags: AUTH_TAG,
    security: [],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { token: { type: 'string' }, password: { type: 'string', minLength: 12, maxLength: 256 } },
            required: ['token', 'password'],
          },
        },
      },
    },
    responses: {
      204: { description: 'Password set, signed in', headers: SET_COOKIE },
      ...errors([400, 401, 403, 409, 413, 415, 422, 503], (s) => (s === 503 ? RETRY : {})),
    },
  },
  me: admin('whoAmI', 'Who is signed in', {
    tags: AUTH_TAG,
    responses: {
      200: {
        description: 'The user (the operator token: role `operator`, no email or customer)',
        content: json({
          type: 'object',
          properties: {
            email: { type: ['string', 'null'] },
            role: { type: 'string' },
            customer_id: { type: ['string', 'null'] },
            session_id: { type: 'string' },
          },
          required: ['email', 'role', 'customer_id'],
        }),
      },
      ...adminErrors('read'),
    },
  }),
  logout: {
    operationId: 'signOut',
    summary: 'Sign out: the session ends and its cookie is cleared',
    tags: AUTH_TAG,
    security: [],
    responses: { 204: { description: 'Signed out', headers: SET_COOKIE }, ...errors([403, 503], (s) => (s === 503 ? RETRY : {})) },
  },
  sessions: admin('listMySessions', "The signed-in user's sessions", {
    tags: AUTH_TAG,
    responses: { 200: { description: 'Sessions', content: json({ type: 'array', items: sessionSchema }) }, ...adminErrors('read', 400) },
  }),
  endSession: admin('endMySession', 'End one of my sessions (sign out elsewhere)', {
    tags: AUTH_TAG,
    parameters: [idParam('session')],
    responses: { 204: { description: 'Ended' }, ...adminErrors('delete', 400) },
  }),
};

export const ssoDocs = {
  start: {
    operationId: 'startSso',
    summary: "Sign in with the customer's OpenID Connect provider: a redirect to it",
    tags: AUTH_TAG,
    security: [],
    parameters: [
      { name: 'customerId', in: 'path', required: true, schema: { type: 'string' }, description: 'The customer whose provider to use' },
      {
        name: 'link',
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description: "Present: link single sign-on to the signed-in user's account (needs their session; the provider must vouch for the same email)",
      },
    ],
    responses: {
      302: {
        description: 'To the provider (authorization code + PKCE), with a short-lived cookie holding the pending sign-in',
        headers: { Location: header('Location', true) },
      },
      ...errors([401, 404, 503], (s) => (s === 503 ? RETRY : {})),
    },
  },
  callback: {
    operationId: 'finishSso',
    summary: "The provider's redirect back: a session, then the console",
    description:
      'A refused sign-in (wrong state, expired code, an email outside the allowed domains, an unverified email, another identity than the one the user is bound to, a password account not linked …) redirects to the console with the reason.',
    tags: AUTH_TAG,
    security: [],
    parameters: [
      { name: 'code', in: 'query', required: false, schema: { type: 'string' } },
      { name: 'state', in: 'query', required: false, schema: { type: 'string' } },
    ],
    responses: {
      302: { description: 'To the console (signed in, or with the reason it was refused)', headers: { Location: header('Location', true) } },
      ...errors([503], () => RETRY),
    },
  },
};
