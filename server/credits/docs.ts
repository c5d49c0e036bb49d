/** The OpenAPI operation of `GET /v1/usage` (usage-route.ts), over the shared kit. */
import { errors, json, meteredHeaders, REQUEST_ID, ref } from '../openapi/kit.ts';

export const usageDocs = {
  get: {
    operationId: 'getUsage',
    summary: 'What the calling token has left: credits per pool, when the contract year restarts, its rate limit',
    description: "A token of any API group asks about itself. Free (never charged); counted in the token's rate limit like any call.",
    tags: ['Operating'],
    security: [{ Token: [] }],
    parameters: [REQUEST_ID],
    responses: {
      200: { description: "The token's usage", headers: meteredHeaders(200), content: json(ref('UsageResponse')) },
      ...errors([401, 403, 429, 503], (s) => meteredHeaders(s)),
    },
  },
};
