/** The OpenAPI operations of the operating endpoints (health.ts, metrics-route.ts), over the shared kit. */
import { codesOfStatus, errors, header, json, RETRY, ref } from '../openapi/kit.ts';

export const livenessDocs = {
  get: {
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers',
    tags: ['Operating'],
    security: [],
    responses: { 200: { description: 'Alive', content: json({ type: 'object', properties: { status: { const: 'ok' } }, required: ['status'] }) } },
  },
};

export const readinessDocs = {
  get: {
    operationId: 'getReadiness',
    summary: 'Readiness: data loaded and state store reachable',
    tags: ['Operating'],
    security: [],
    responses: {
      200: {
        description: 'Ready',
        content: json({
          type: 'object',
          properties: { status: { const: 'ok' }, checks: { type: 'object', additionalProperties: { type: 'string' } } },
          required: ['status', 'checks'],
        }),
      },
      503: {
        description: 'Not ready: the message says why (an error answer with the checks)',
        content: json({
          type: 'object',
          properties: {
            status: { const: 'error' },
            message: { type: 'string' },
            code: { allOf: [ref('ErrorCode')], enum: codesOfStatus(503) },
            checks: { type: 'object', additionalProperties: { type: 'string' } },
          },
          required: ['status', 'message', 'code', 'checks'],
        }),
      },
    },
  },
};

export const metricsDocs = {
  get: {
    operationId: 'getMetrics',
    summary: 'Prometheus metrics (also unauthenticated on SVC_METRICS_PORT)',
    description: "Guarded by the admin token and by the admin API's throttle of failed credentials.",
    tags: ['Operating'],
    security: [{ AdminBearer: [] }],
    responses: {
      200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } },
      ...errors([401, 429], (s) => (s === 401 ? { 'WWW-Authenticate': header('WWW-Authenticate', true) } : RETRY)),
    },
  },
};
