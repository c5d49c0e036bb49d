/** The OpenAPI operations of the webhook routes (routes.ts), over the shared kit. */
import { admin, adminErrors, errors, idParam, json, jsonBody, pathParam, ref, schema } from '../openapi/kit.ts';
import { TestEventBody, WebhookPatch } from './schema.ts';

const WEBHOOK_ID = pathParam('webhookId', 'The webhook endpoint id');
/** The routes added with payload versions name the id's prefix. */
const ENDPOINT_ID = pathParam('webhookId', 'The endpoint id (`wh_…`)');

export const webhooksDocs = {
  get: admin('listWebhooks', "A customer's webhook endpoints (signing secrets are never shown again)", {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'Endpoints', content: json({ type: 'array', items: ref('Webhook') }) }, ...adminErrors('read', 404) },
  }),
  post: admin('createWebhook', 'Register a webhook endpoint: its signing secret is in this answer only', {
    parameters: [idParam('customer')],
    requestBody: jsonBody('NewWebhook'),
    responses: {
      201: { description: 'Created', content: json(ref('WebhookWithSecret')) },
      ...adminErrors('write', 404, 422),
      ...errors([409], undefined, {
        409: { codes: ['conflict'], description: 'The customer already has 20 endpoints, the most it may have (`conflict`): delete one first' },
      }),
    },
  }),
};

export const webhookDocs = {
  get: admin('getWebhook', 'A webhook endpoint', {
    parameters: [idParam('customer'), WEBHOOK_ID],
    responses: { 200: { description: 'The endpoint', content: json(ref('Webhook')) }, ...adminErrors('read', 404) },
  }),
  delete: admin('deleteWebhook', 'Remove a webhook endpoint (its undelivered events are dropped)', {
    parameters: [idParam('customer'), WEBHOOK_ID],
    responses: { 204: { description: 'Removed' }, ...adminErrors('delete', 404) },
  }),
};

export const webhookDeliveriesDocs = {
  get: admin('listWebhookDeliveries', "An endpoint's delivery log, newest first", {
    parameters: [
      idParam('customer'),
      WEBHOOK_ID,
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
        description: 'At most this many deliveries',
      },
    ],
    responses: { 200: { description: 'Deliveries', content: json({ type: 'array', items: ref('Delivery') }) }, ...adminErrors('read', 404, 422) },
  }),
};

export const webhookPatchDocs = {
  patch: admin(
    'updateWebhook',
    'Change an endpoint: URL, events, hot paths, description, the payload version per event (`event_versions`; GET /schemas lists them), segment names and scores in payloads, the `format` (json or slack) and the `filters`. The signing secret stays. Newly subscribed events get their newest version unless named; turning an endpoint into a Slack one moves its v1 account events to the newest',
    {
      parameters: [idParam('customer'), ENDPOINT_ID],
      requestBody: { required: true, content: json(schema(WebhookPatch, 'input')) },
      responses: { 200: { description: 'The endpoint as changed', content: json(ref('Webhook')) }, ...adminErrors('write', 404, 422) },
    },
  ),
};

export const webhookTestDocs = {
  post: admin(
    'testWebhook',
    'Send a signed sample of an event (default: the endpoint’s first event, in the version it chose) to the endpoint now, outside the outbox (not retried, not in the delivery log; header `Svc-Test-Event: true`), and answer what the receiver said. A Slack endpoint is posted the Block Kit message built from the sample (no signature), answered as `slack`. A body-less POST is fine',
    {
      parameters: [idParam('customer'), ENDPOINT_ID],
      requestBody: { required: false, content: json(schema(TestEventBody, 'input')) },
      responses: {
        200: {
          description: 'The sample sent and the receiver’s answer (its first 2 KB); `delivered` is a 2xx within the timeout',
          content: json({
            type: 'object',
            properties: {
              event: { type: 'object', description: 'The body sent (valid against its schema); for a Slack endpoint, the event its message was built from' },
              slack: { type: 'object', description: 'Slack endpoints only: the Block Kit message posted (`text`, `blocks`)' },
              delivered: { type: 'boolean' },
              status: { type: ['integer', 'null'] },
              body: { type: 'string' },
              error: { type: ['string', 'null'] },
              duration_ms: { type: 'number' },
            },
            required: ['event', 'delivered', 'status', 'body', 'error', 'duration_ms'],
          }),
        },
        ...adminErrors('write', 404, 422),
      },
    },
  ),
};
