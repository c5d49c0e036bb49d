/**
 * Lookalike accounts in the workspace (admin auth, `segments:write` as the segment preview; nothing saved):
 *   POST /admin/api/customers/:id/lookalikes/preview   {seed: {list} | {segment} | {companies}, limit?}
 *     → {accounts: [{company_id, name, domain, score, reasons, excluded}], seed: {accounts, not_found}}
 *
 * The seed is resolved as a segment's `lookalike` condition resolves it (server/segments/lookalike-seeds.ts:
 * a list's accounts, a segment's members with the facts its rule reads, company ids), scored against the
 * whole catalog by the snapshot's lookalike index (./snapshot-index.ts, kept per seed) and explained by the
 * method (./method.ts). The seed's own accounts are never answered; the customer's excluded accounts are,
 * flagged `excluded` (identification answers them, with `is_blacklisted`).
 *
 * Bad input is a 4xx with a code: no seed or two (422), a list or segment the customer does not have (422),
 * a seed with no account of the catalog (422), a limit outside 1–200 (422).
 */
import { ApiError } from '../../core/error-codes.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { BodySpec, RouteContext, RouteDef } from '../http/route-def.ts';
import { admin, adminErrors, idParam, json, schema } from '../openapi/kit.ts';
import { resolveSeed, SeedError, type SeedSources, seedSources } from '../segments/lookalike-seeds.ts';
import { likeness } from './method.ts';
import { type LookalikeAccount, LookalikePreview, LookalikePreviewBody } from './schema.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;
/** How long the answer's catalog reads run before they give the event loop back. */
const SLICE_MS = 8;
/** Room for a seed of 10,000 company ids. */
const PREVIEW_BODY: BodySpec<unknown> = { types: 'json', limit: 1024 * 1024 };

const previewDocs = admin('previewLookalikes', 'The catalog accounts most like a seed (a list, a segment or company ids), with scores and reasons', {
  description: [
    'Nothing is saved. Each account of the catalog is scored against the seed’s firmographic profile — industry, sub-industry, NAICS and SIC codes (shared prefixes), employee and revenue bands (the same band, or the next one for half), country and region — weighted, from 0 to 1 (three decimals), highest first, equal scores by company id. The method is deterministic and described in docs/console.md “Lookalike accounts”.',
    'The seed’s own accounts are never answered; the customer’s excluded accounts are, with `excluded: true`. A segment uses the same score with the rule `{"lookalike": {"list": "<id>", "min_score": 0.7}}` (or `segment`, `companies`).',
    'A seed naming no list or segment of the customer, two seeds, a seed without any account of the catalog, or a `limit` outside 1–200: 422 `invalid`.',
  ].join('\n\n'),
  parameters: [idParam('customer')],
  requestBody: { required: true, content: json(schema(LookalikePreviewBody, 'input'), { seed: { list: 'best-customers' }, limit: 20 }) },
  responses: { 200: { description: 'The accounts most like the seed', content: json(schema(LookalikePreview)) }, ...adminErrors('write', 404, 422) },
});

/** The CRM store of the app, when the CRM sync runs (a seed segment may read the CRM side). */
const crmStore = (services: RouteContext['services']) => services.crm?.deps.crm;

/** What a seed problem says, on the field it is about. */
const SEED_FIELD = { unknown_list: 'seed.list', unknown_segment: 'seed.segment', cycle: 'seed.segment', empty: 'seed' } as const;

/**
 * The preview's answer: the seed resolved (SeedError for a list or segment the customer does not have),
 * scored against the catalog, the `limit` accounts most like it explained. What the route answers and the
 * benchmark measures (bench/lookalikes.ts).
 */
export async function lookalikePreview(sources: SeedSources, body: LookalikePreviewBody, excluded: ReadonlySet<string>): Promise<LookalikePreview> {
  const seed = await resolveSeed(sources, body.seed);
  if (seed.rows.length === 0)
    throw new ApiError(
      'invalid',
      `seed: ${body.seed.companies ? 'none of the company ids is' : `the ${body.seed.list !== undefined ? 'list' : 'segment'} holds no account`} in the catalog: nothing to compare with`,
    );
  const { index } = seed;
  const { catalog } = sources;
  const scored = await index.scoresOf(seed.rows);
  const accounts: LookalikeAccount[] = [];
  let slice = performance.now();
  for (const row of await index.top(scored, body.limit)) {
    const company_id = index.companyId(row);
    // The catalog's own row for the words (its spelling); the index's values if the snapshot moved on meanwhile.
    const company = catalog.company(company_id);
    accounts.push({
      company_id,
      name: company?.name || null,
      domain: company?.domain || null,
      score: scored.scores[row] / 1000,
      reasons: likeness(scored.profile, company ?? index.featureRow(row)).reasons,
      excluded: excluded.has(company_id),
    });
    // Each row is a point read of the catalog, from disk when its page is cold: 200 of them give the loop back in between.
    if (performance.now() - slice >= SLICE_MS) {
      await new Promise<void>((r) => setImmediate(r));
      slice = performance.now();
    }
  }
  return { accounts, seed: { accounts: seed.rows.length, not_found: seed.notFound } };
}

export const lookalikeRoutes: RouteDef[] = [
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/lookalikes/preview',
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: PREVIEW_BODY,
    doc: previewDocs,
    handler: async (ctx) => {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const body = parseRecord(LookalikePreviewBody, ctx.body);
      const sources = seedSources(ctx.services.dataset.current.catalog, customer, { visits: ctx.services.recorder.visits, crm: crmStore(ctx.services) });
      const answer = await lookalikePreview(sources, body, new Set(customer.excluded_accounts)).catch((e: unknown) => {
        if (e instanceof SeedError) throw new ApiError('invalid', `${SEED_FIELD[e.problem]}: ${e.message}`);
        throw e;
      });
      return { status: 200, body: answer };
    },
  }),
];
