/** The OpenAPI operations of the alerts routes (routes.ts), over the shared kit. */
import { admin, adminErrors, errors, idParam, json, pathParam, ref, schema } from '../openapi/kit.ts';
import { AlertPatch, AlertView, NewAlert, OwnersReport, OwnersView, TestAlertAnswer } from './schema.ts';

const ALERT_ID = pathParam('alertId', 'The alert id (`wh_…`: an alert is an outbox endpoint)');
const PARAMS = [idParam('customer'), ALERT_ID];
const View = schema(AlertView);

export const alertsDocs = {
  get: admin('listAlerts', "A customer's alerts (Slack and Teams URLs masked)", {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'The alerts', content: json({ type: 'array', items: View }) }, ...adminErrors('read', 404) },
  }),
  post: admin(
    'createAlert',
    'Create an alert: a trigger (`segment_entered`, `hot`, `stage_reached`, `first_visit`, `visited`), optional filters, a destination (`slack`, `teams`, `email`, or `webhook` — signed JSON, admins only: 403 otherwise) and optional routing to the account’s owner. Fires at most once per account, trigger and UTC day; delivered through the webhook outbox. A Slack or Teams URL that is not the service’s is 422 naming the expected hosts',
    {
      parameters: [idParam('customer')],
      requestBody: { required: true, content: json(schema(NewAlert, 'input')) },
      responses: {
        201: { description: 'Created (a webhook destination’s signing secret is in this answer only)', content: json(View) },
        ...adminErrors('write', 404, 422),
        ...errors([409], undefined, { 409: { codes: ['conflict'], description: 'The customer already has 50 alerts (`conflict`)' } }),
      },
    },
  ),
};

export const alertDocs = {
  get: admin('getAlert', 'An alert', {
    parameters: PARAMS,
    responses: { 200: { description: 'The alert', content: json(View) }, ...adminErrors('read', 404) },
  }),
  patch: admin('updateAlert', 'Change an alert: any field of its creation; `paused: true` pauses it (nothing is planned for it until resumed)', {
    parameters: PARAMS,
    requestBody: { required: true, content: json(schema(AlertPatch, 'input')) },
    responses: { 200: { description: 'The alert as changed', content: json(View) }, ...adminErrors('write', 404, 422) },
  }),
  delete: admin('deleteAlert', 'Remove an alert (its undelivered alerts are dropped)', {
    parameters: PARAMS,
    responses: { 204: { description: 'Removed' }, ...adminErrors('delete', 404) },
  }),
};

export const alertTestDocs = {
  post: admin(
    'testAlert',
    'Send a test of the alert: a sample account’s alert labelled as a test (Slack, Teams and email say so; a webhook gets `Svc-Test-Event: true` and `alert.test: true`), put in the outbox now and delivered by the dispatcher (retried, and in the delivery log with `test: true`). A body-less POST is fine',
    {
      parameters: PARAMS,
      requestBody: { required: false, content: json({ type: 'object' }) },
      responses: { 202: { description: 'Queued', content: json(schema(TestAlertAnswer)) }, ...adminErrors('write', 404) },
    },
  ),
};

export const alertDeliveriesDocs = {
  get: admin('listAlertDeliveries', "An alert's delivery log, newest first (tests flagged `test: true`)", {
    parameters: [
      ...PARAMS,
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

export const ownersDocs = {
  put: admin(
    'putAlertOwners',
    'Upload the owners list (CSV, replaced whole): a row per account (`domain` or `company_id`, `owner_email`, optional `slack_member_id`, `teams_mention`) and territory rules (rows with `country`, `region`, `industry` and/or `size` instead, several values separated by `;`; in order, the first match wins). Owner routing reads the CRM’s owner first, then this list, then the rules. A bad row refuses the file (422 naming the row)',
    {
      parameters: [idParam('customer')],
      requestBody: {
        required: true,
        content: { 'text/csv': { schema: { type: 'string' }, example: 'domain,owner_email,slack_member_id\nnorthwind.example,ann@acme.test,U0123ABCD\n' } },
      },
      responses: { 200: { description: 'Stored', content: json(schema(OwnersReport)) }, ...adminErrors('write', 404, 413, 415, 422) },
    },
  ),
  get: admin('getAlertOwners', 'The owners list and territory rules as uploaded', {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'The owners list', content: json(schema(OwnersView)) }, ...adminErrors('read', 404) },
  }),
};
