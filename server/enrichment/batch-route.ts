/**
 * `POST /v3/batch/enrichment` (token group company-firmographics): up to 100 items, `{email}` or `{domain}`
 * each, answered 200 `{results}` — one result per item, in order, each what `POST /v1/enrichment/company`
 * answers for it plus its status (./batch.ts). Partial success is normal. The request as a whole runs the
 * one pipeline once: authenticated, rate limited (one request of the token's per-minute limit, whatever its
 * size), the envelope validated (a bad one is 422 for the request), then each item on its own, each found
 * company charged through the pipeline's credit step (`ctx.charge`), its segments evaluated on the account's
 * facts as the single route's are (./account-sources.ts).
 */
import { followedTopics } from '../data/catalog-topics.ts';
import { apiRoute, type RouteDef } from '../http/route-def.ts';
import { accountSources } from './account-sources.ts';
import { enrichItems } from './batch.ts';
import { BATCH_BODY_LIMIT, BatchEnrichmentBody } from './batch-schema.ts';
import { batchEnrichmentDoc } from './docs.ts';

export const batchEnrichmentRoutes: RouteDef[] = [
  apiRoute<BatchEnrichmentBody>({
    method: 'POST',
    path: '/v3/batch/enrichment',
    auth: { kind: 'token', group: 'company-firmographics' },
    body: { types: 'json', limit: BATCH_BODY_LIMIT, schema: BatchEnrichmentBody, validation: 'record' },
    charges: 'company-firmographics-v3',
    doc: batchEnrichmentDoc.post,
    async handler(ctx) {
      const caller = ctx.caller!;
      const { catalog } = ctx.services.dataset.current;
      const results = await enrichItems(ctx.body.items, {
        catalog,
        context: {
          customer: caller.customer,
          settings: caller.settings,
          now: new Date(),
          topics: (id) => followedTopics(catalog.topics, caller.customer.topics, id),
        },
        accounts: accountSources(ctx.services, catalog),
        charge: (c) => ctx.charge(c),
      });
      return { status: 200, body: { results } };
    },
  }),
];
