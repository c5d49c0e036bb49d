/** The OpenAPI operations of the demo page (site.ts, mounted by the app shell) and its sample visitors (visitors.ts), over the shared kit. */
import { errors, json, RETRY } from '../openapi/kit.ts';

/** The demo page at `/` and `/index.html` (served when it is built). */
export const demoSiteDocs = (path: '/' | '/index.html') => ({
  get: {
    operationId: path === '/' ? 'getDemoSite' : 'getDemoSiteIndex',
    summary: 'The demo site (served when it is built): a customer marketing page with the snippet, under a CSP with a per-answer nonce',
    tags: ['Web tag'],
    security: [],
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors([404]) },
  },
});

export const demoVisitorsDocs = {
  get: {
    operationId: 'listDemoVisitors',
    summary: 'Demo mode only (SVC_DEMO): sample visitors of the demo page',
    tags: ['Web tag'],
    security: [],
    responses: {
      200: {
        description: 'Sample visitors',
        content: json({
          type: 'object',
          properties: {
            visitors: {
              type: 'array',
              items: {
                type: 'object',
                properties: { label: { type: 'string' }, ip: { type: 'string' }, kind: { type: 'string' }, company: { type: 'string' } },
                required: ['label', 'ip', 'kind'],
              },
            },
          },
          required: ['visitors'],
        }),
      },
      ...errors([503], () => RETRY),
    },
  },
};
