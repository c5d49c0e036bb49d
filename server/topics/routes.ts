/**
 * The third-party intent topics a customer follows (its settings), and the dataset's topics to pick from.
 *
 * Workspace (admin auth; reads `reports:read`, the change `segments:write` — a marketer's, as segments are;
 * audited as `customer.topics`):
 *   GET /admin/api/customers/:id/topics              → {customer_id, topics, latest_week}
 *   PUT /admin/api/customers/:id/topics {topics}     → the same, after the change
 *   GET /admin/api/customers/:id/topics/names?q&limit → {latest_week, total, names: [{name, accounts, surging, followed}]}
 * A followed topic must be one of the dataset's (422 otherwise: a typo would show nothing); it is kept as
 * the dataset spells it. A later dataset without it keeps the choice (it shows nothing until it is back).
 *
 * The topics live in the customer record (`topics`): a change drops every node's cached customer through the
 * auth version, so the account page, the `topic` rules' words and the answers of tokens with `intent_topics`
 * follow within a second.
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { customerOr404 } from '../customers/lookup.ts';
import type { CatalogTopics } from '../data/catalog-topics.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { RouteDef } from '../http/route-def.ts';
import { admin, adminErrors, idParam, json, schema } from '../openapi/kit.ts';
import { CustomerTopicsAnswer, TopicNamesAnswer, TopicNamesQuery, TopicsUpdate } from './schema.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;

const answer = (customer: Pick<CustomerRecord, 'id' | 'topics'>, topics: CatalogTopics): CustomerTopicsAnswer => ({
  customer_id: customer.id,
  topics: [...customer.topics],
  latest_week: topics.latestWeek(),
});

/** The names as the dataset spells them; 422 naming those it does not hold. */
export function datasetNames(topics: Pick<CatalogTopics, 'named'>, names: readonly string[]): string[] {
  const unknown: string[] = [];
  const out = names.map((n) => {
    const found = topics.named(n);
    if (found === null) unknown.push(n);
    return found ?? n;
  });
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 10).map((n) => JSON.stringify(n.slice(0, 80)));
    throw new ApiError(
      'invalid',
      `topics: no topic ${shown.join(', ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''} in the dataset (GET …/topics/names lists them)`,
    );
  }
  return out;
}

/** The dataset's topics whose name holds `q` (ignoring case), by name, the customer's followed ones marked. */
export function topicNames(topics: Pick<CatalogTopics, 'names' | 'latestWeek'>, followed: readonly string[], q: string, limit: number): TopicNamesAnswer {
  const text = q.trim().toLowerCase();
  const mine = new Set(followed.map((t) => t.toLowerCase()));
  const matching = text === '' ? topics.names() : topics.names().filter((n) => n.name.toLowerCase().includes(text));
  return {
    latest_week: topics.latestWeek(),
    total: matching.length,
    names: matching.slice(0, limit).map((n) => ({ ...n, followed: mine.has(n.name.toLowerCase()) })),
  };
}

const docs = {
  get: admin('getCustomerTopics', 'The third-party intent topics the customer follows', {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'The followed topics', content: json(schema(CustomerTopicsAnswer)) }, ...adminErrors('read') },
  }),
  put: admin('setCustomerTopics', 'Choose the third-party intent topics the customer follows (the whole list)', {
    description:
      'Followed topics are what the account page shows (surging topics with their trend) and what identification and enrichment answers carry in `intent_topics` for a token with that setting. Each must be a topic of the dataset (GET …/topics/names; ignoring case, kept as the dataset spells it), else 422. Audited as `customer.topics`.',
    parameters: [idParam('customer')],
    requestBody: { required: true, content: json(schema(TopicsUpdate, 'input'), { topics: ['customer data platform', 'identity resolution'] }) },
    responses: { 200: { description: 'The followed topics', content: json(schema(CustomerTopicsAnswer)) }, ...adminErrors('write', 422) },
  }),
  names: admin('listTopicNames', "The dataset's third-party intent topics to choose from", {
    description:
      'By name; `q` keeps those whose name holds it (ignoring case). Each with its accounts (a score on it in any week) and those surging (score ≥ 60) in the latest week, and whether the customer follows it.',
    parameters: [
      idParam('customer'),
      { name: 'q', in: 'query', required: false, schema: { type: 'string', maxLength: 200 }, description: 'Part of a topic name' },
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 2000, default: 500 },
        description: 'Names listed at most',
      },
    ],
    responses: { 200: { description: 'The topics', content: json(schema(TopicNamesAnswer)) }, ...adminErrors('read', 422) },
  }),
};

export const topicRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/topics',
    access: { permission: 'reports:read', customer: CUSTOMER },
    doc: docs.get,
    handler: async (ctx) => ({
      status: 200,
      body: answer(await customerOr404(ctx.services.store, ctx.req.params.id!), ctx.services.dataset.current.catalog.topics),
    }),
  }),
  adminRoute({
    method: 'PUT',
    path: '/admin/api/customers/:id/topics',
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: ADMIN_JSON_BODY,
    doc: docs.put,
    handler: async (ctx) => {
      const before = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const { topics: asked } = parseRecord(TopicsUpdate, ctx.body);
      const { topics } = ctx.services.dataset.current.catalog;
      const after = await ctx.services.store.updateCustomer(before.id, { topics: datasetNames(topics, asked) });
      await ctx.audit({
        customer: before.id,
        action: 'customer.topics',
        target: before.id,
        before: { topics: before.topics },
        after: { topics: after.topics },
      });
      return { status: 200, body: answer(after, topics) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/topics/names',
    access: { permission: 'reports:read', customer: CUSTOMER },
    doc: docs.names,
    handler: async (ctx) => {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const { q, limit } = parseRecord(TopicNamesQuery, { q: ctx.req.query.q, limit: ctx.req.query.limit });
      return { status: 200, body: topicNames(ctx.services.dataset.current.catalog.topics, customer.topics, q, limit) };
    },
  }),
];
