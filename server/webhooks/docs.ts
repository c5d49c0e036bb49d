/** The OpenAPI operations of the webhook routes added with payload versions (routes.ts), over the shared kit. */
import { admin, adminErrors, idParam, json, pathParam, ref, schema } from '../openapi/kit.ts';
import { TestEventBody, WebhookPatch } from './schema.ts';

const WEBHOOK_ID = pathParam('webhookId', 'The endpoint id (`wh_…`)');

export const webhookPatchDocs = {
  patch: admin(
    'updateWebhook',
    'Change an endpoint: URL, events, hot paths, description, the payload version per event (`event_versions`; GET /schemas lists them), segment names and scores in payloads, the `format` (json or slack) and the `filters`. The signing secret stays. Newly subscribed events get their newest version unless named; turning an endpoint into a Slack one moves its v1 account events to the newest',
    {
      parameters: [idParam('customer'), WEBHOOK_ID],
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
      parameters: [idParam('customer'), WEBHOOK_ID],
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
