/**
 * Segments: built in the workspace, answered by the Segments API.
 *
 * Workspace (admin auth; reads `reports:read`, changes `segments:write`; each change audited):
 *   GET    /admin/api/customers/:id/segments                 → [Segment]
 *   POST   /admin/api/customers/:id/segments                 {name, match} → 201 Segment (id given here)
 *   GET    /admin/api/customers/:id/segments/:segmentId      → Segment
 *   PATCH  /admin/api/customers/:id/segments/:segmentId      {name?, match?} → Segment
 *   DELETE /admin/api/customers/:id/segments/:segmentId      → 204
 *   POST   /admin/api/customers/:id/segments/preview         {match} → {size, accounts: first 20}
 * Ids are positive integers per customer, never reused (the customer's `segment_seq` high-water mark);
 * names are unique per customer, case-insensitively (409). A change is a change of the customer record
 * (one atomic store step, `changeSegments`), so every node's cached customer — what identification, the
 * enrichment answers and the tag read — is dropped through the auth version within a second.
 *
 * Segments API (token group `segments`, granted per customer by the operator; free; rate limited):
 *   GET /v3/segments                              → {segments: [{id, name, size}]}
 *   GET /v3/segments/:segmentId/accounts?limit&cursor → {accounts: [{companyId, name, domain}], next_cursor}
 *   GET /v3/segments/membership?domain=           → {domain, companyId, segments: {ids, names}}
 * Sizes and pages come from the per-snapshot membership index (./membership.ts), never a catalog scan per
 * request, with the intent scores, the accounts that visited and the CRM side read per request when a
 * rule needs them (./member-facts.ts); membership evaluates the company as identification does (./evaluate.ts
 * `matchingSegments`, with the account's facts: ./account-facts.ts).
 *
 * A rule is checked against the customer before it is saved or previewed: every list `in_list` names and
 * every product `intent` names must exist (422 otherwise: a typo would silently match nothing), so must a
 * `lookalike` condition's seed list or segment, and a segment is never seeded by itself (422, ./lookalike-rules.ts);
 * a segment that seeds another's lookalike condition is not deleted (409).
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { Segment, SegmentMatch } from '../../core/customer-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { changeCustomerRecord } from '../customers/change-record.ts';
import { customerOr404 } from '../customers/lookup.ts';
import type { Catalog } from '../data/catalog.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import { apiRoute, type RouteContext, type RouteDef } from '../http/route-def.ts';
import { parseDomain } from '../net/email.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { EngagementStore } from '../state/engagement/store.ts';
import type { VisitStore } from '../state/visits/store.ts';
import { gatherAccountFacts, productNamed } from './account-facts.ts';
import { segmentAccountsDocs, segmentDocs, segmentMembershipDocs, segmentPreviewDocs, segmentsApiDocs, segmentsDocs } from './docs.ts';
import { type ListMembers, listMembers, matchingSegments, ruleLists, ruleProducts, ruleSummary, segmentsPayload } from './evaluate.ts';
import { seedCycle, segmentsSeededBy, unknownSeeds } from './lookalike-rules.ts';
import { gatherMemberFacts } from './member-facts.ts';
import { SegmentIndex, segmentIndex } from './membership.ts';
import { MembershipQuery, NewSegment, type SegmentAccount, SegmentAccountsQuery, SegmentPatch, SegmentPreviewBody } from './schema.ts';
import { checkRuleTopics } from './topic-rule.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;
/** Accounts a preview shows. */
export const PREVIEW_ACCOUNTS = 20;

/** A segment id of the path: a positive integer, else no such segment. */
function segmentIdOf(raw: string | undefined, customerId: string): number {
  const id = /^[1-9][0-9]{0,9}$/.test(raw ?? '') ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new ApiError('not_found', `unknown segment ${String(raw).slice(0, 32)} of customer ${customerId}`);
  return id;
}

function segmentOr404(segments: readonly Segment[], id: number, customerId: string): Segment {
  const s = segments.find((x) => x.id === id);
  if (!s) throw new ApiError('not_found', `unknown segment ${id} of customer ${customerId}`);
  return s;
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function checkNameFree(segments: readonly Segment[], name: string, except: number | null): void {
  const taken = segments.find((s) => s.id !== except && sameName(s.name, name));
  if (taken) throw new ApiError('conflict', `a segment named ${JSON.stringify(taken.name)} exists already (id ${taken.id})`);
}

/** Accounts of member rows, as the API shows them (name and domain from the catalog). */
function accountsOf(catalog: Catalog, index: SegmentIndex, rows: Uint32Array, from: number, to: number): SegmentAccount[] {
  const out: SegmentAccount[] = [];
  for (let i = from; i < to && i < rows.length; i++) {
    const companyId = index.companyId(rows[i]);
    const c = catalog.company(companyId);
    out.push({ companyId, name: c?.name || null, domain: c?.domain || null });
  }
  return out;
}

/** The opaque cursor of a page: the last company id given (stable across snapshots and rule changes). */
const encodeCursor = (segmentId: number, after: string) => Buffer.from(JSON.stringify({ s: segmentId, a: after })).toString('base64url');

function decodeCursor(cursor: string, segmentId: number): string {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown; a?: unknown };
    if (c.s === segmentId && typeof c.a === 'string') return c.a;
  } catch {
    // Falls through to the 422.
  }
  throw new ApiError('invalid', 'cursor: not a cursor of this segment (pass next_cursor as it was given)');
}

/**
 * A rule names only lists, products and seed segments the customer has (422 otherwise: a typo would
 * silently match nothing), and segment `self` (being changed) is not seeded by itself (422: a cycle).
 */
function checkRule(customer: CustomerRecord, match: SegmentMatch | undefined, self: number | null = null): void {
  if (!match) return;
  const lists = listMembers(customer);
  const seeds = unknownSeeds(match, lists, customer.segments);
  if (seeds) throw new ApiError('invalid', seeds);
  const cycle = self === null ? null : seedCycle(customer.segments, self, match);
  if (cycle)
    throw new ApiError(
      'invalid',
      `match.lookalike.segment: segment ${self} would be seeded by itself (${cycle.join(' → ')}): seed it from another segment, a list or company ids`,
    );
  const unknown = [...new Set(ruleLists(match))].filter((id) => lists(id) === undefined);
  if (unknown.length > 0)
    throw new ApiError(
      'invalid',
      `match.in_list: no list ${unknown.map((id) => JSON.stringify(id)).join(', ')} (GET /admin/api/customers/${customer.id}/lists)`,
    );
  const products = [...new Set(ruleProducts(match))].filter((name) => productNamed(customer.products, name) === undefined);
  if (products.length > 0) {
    const known = customer.products.map((p) => p.name);
    throw new ApiError(
      'invalid',
      `match.intent.product: no product ${products.map((p) => JSON.stringify(p)).join(', ')} of customer ${customer.id} (${known.length > 0 ? `its products: ${known.join(', ')}` : 'it has no products'})`,
    );
  }
}

/** Whose rules are evaluated: the customer (its products name intent), its visit store (behaviour) and CRM store (the CRM side). */
export interface RuleOwner {
  customer: Pick<CustomerRecord, 'id' | 'products'>;
  visits?: Pick<VisitStore, 'accountsPages'>;
  crm?: Pick<CrmStore, 'listAccounts'>;
  /** Engaged time and custom events (`engaged`, `event` conditions). */
  engagement?: Pick<EngagementStore, 'accountsEngagement'>;
}

/** The CRM store of the app, when the CRM sync runs (it may not, in tests that build the app without it). */
const crmStore = (services: RouteContext['services']): CrmStore | undefined => services.crm?.deps.crm;

/**
 * The size and first accounts of a rule; `owner` is needed for intent and behaviour conditions (without it
 * they hold for nobody) and the CRM side (without it no account has a CRM owner or stage).
 */
export async function previewSegment(
  catalog: Catalog,
  match: SegmentMatch,
  lists?: ListMembers,
  owner?: RuleOwner,
): Promise<{ size: number; accounts: SegmentAccount[] }> {
  const index = await segmentIndex(catalog);
  const facts = owner
    ? await gatherMemberFacts({ catalog, visits: owner.visits, crm: owner.crm, engagement: owner.engagement }, index, owner.customer, [match], new Date())
    : undefined;
  const rows = index.membersOf(match, lists, facts);
  return { size: rows.length, accounts: accountsOf(catalog, index, rows, 0, PREVIEW_ACCOUNTS) };
}

export const segmentAdminRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/segments',
    access: { permission: 'reports:read', customer: CUSTOMER },
    doc: segmentsDocs.get,
    handler: async (ctx) => ({ status: 200, body: (await customerOr404(ctx.services.store, ctx.req.params.id!)).segments }),
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/segments',
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: ADMIN_JSON_BODY,
    doc: segmentsDocs.post,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      const input = parseRecord(NewSegment, ctx.body);
      checkRule(await customerOr404(ctx.services.store, customerId), input.match);
      checkRuleTopics(ctx.services.dataset.current.catalog.topics, input.match, customerId);
      const segment = await changeCustomerRecord(
        ctx,
        'segments',
        customerId,
        ({ segments, segment_seq }) => {
          checkNameFree(segments, input.name, null);
          const id = segments.reduce((m, s) => Math.max(m, s.id), segment_seq) + 1;
          const created: Segment = { id, name: input.name, match: input.match };
          return { next: { segments: [...segments, created], segment_seq: id }, result: created };
        },
        (created) => ({ action: 'segment.create', target: String(created.id), after: created }),
      );
      return { status: 201, body: segment };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/segments/preview',
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: ADMIN_JSON_BODY,
    doc: segmentPreviewDocs.post,
    handler: async (ctx) => {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const { match } = parseRecord(SegmentPreviewBody, ctx.body);
      checkRule(customer, match);
      checkRuleTopics(ctx.services.dataset.current.catalog.topics, match, customer.id);
      const owner = { customer, visits: ctx.services.recorder.visits, crm: crmStore(ctx.services), engagement: ctx.services.recorder.engagement };
      return { status: 200, body: await previewSegment(ctx.services.dataset.current.catalog, match, listMembers(customer), owner) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/segments/:segmentId',
    access: { permission: 'reports:read', customer: CUSTOMER },
    doc: segmentDocs.get,
    handler: async (ctx) => {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      return { status: 200, body: segmentOr404(customer.segments, segmentIdOf(ctx.req.params.segmentId, customer.id), customer.id) };
    },
  }),
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/customers/:id/segments/:segmentId',
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: ADMIN_JSON_BODY,
    doc: segmentDocs.patch,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      const id = segmentIdOf(ctx.req.params.segmentId, customerId);
      const customer = await customerOr404(ctx.services.store, customerId);
      const { after } = await changeCustomerRecord(
        ctx,
        'segments',
        customerId,
        ({ segments, segment_seq }) => {
          const before = segmentOr404(segments, id, customerId);
          const patch = parseRecord(SegmentPatch, ctx.body);
          if (patch.name !== undefined) checkNameFree(segments, patch.name, id);
          checkRule({ ...customer, segments }, patch.match, id);
          checkRuleTopics(ctx.services.dataset.current.catalog.topics, patch.match, customerId);
          const after: Segment = { ...before, ...patch };
          return { next: { segments: segments.map((s) => (s.id === id ? after : s)), segment_seq }, result: { before, after } };
        },
        ({ before, after }) => ({ action: 'segment.update', target: String(id), before, after }),
      );
      return { status: 200, body: after };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/customers/:id/segments/:segmentId',
    access: { permission: 'segments:write', customer: CUSTOMER },
    doc: segmentDocs.delete,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      const id = segmentIdOf(ctx.req.params.segmentId, customerId);
      await changeCustomerRecord(
        ctx,
        'segments',
        customerId,
        ({ segments, segment_seq }) => {
          const before = segmentOr404(segments, id, customerId);
          const seeded = segmentsSeededBy(segments, id);
          if (seeded.length > 0)
            throw new ApiError(
              'conflict',
              `the segment seeds the lookalike condition of ${seeded.map((s) => `${JSON.stringify(s.name)} (${s.id})`).join(', ')}: change their rules first`,
            );
          // The high-water mark stays: this id is never given again.
          return { next: { segments: segments.filter((s) => s.id !== id), segment_seq: Math.max(segment_seq, id) }, result: before };
        },
        (before) => ({ action: 'segment.delete', target: String(id), before }),
      );
      return { status: 204 };
    },
  }),
];

const SEGMENTS_AUTH = { kind: 'token', group: 'segments' } as const;

export const segmentApiRoutes: RouteDef[] = [
  apiRoute({
    method: 'GET',
    path: '/v3/segments',
    auth: SEGMENTS_AUTH,
    doc: segmentsApiDocs.get,
    handler: async (ctx) => {
      const { catalog } = ctx.services.dataset.current;
      const index = await segmentIndex(catalog);
      const { customer } = ctx.caller!;
      const lists = listMembers(customer);
      // One read of the visits and the intent scores for every segment.
      const facts = await gatherMemberFacts(
        { catalog, visits: ctx.services.recorder.visits, crm: crmStore(ctx.services), engagement: ctx.services.recorder.engagement },
        index,
        customer,
        customer.segments.map((s) => s.match),
        new Date(),
      );
      const segments = customer.segments.map((s) => ({
        id: s.id,
        name: s.name,
        rule: ruleSummary(s.match),
        size: index.membersOf(s.match, lists, facts).length,
      }));
      return { status: 200, body: { segments } };
    },
  }),
  apiRoute({
    method: 'GET',
    path: '/v3/segments/membership',
    auth: SEGMENTS_AUTH,
    query: MembershipQuery,
    doc: segmentMembershipDocs.get,
    handler: async (ctx) => {
      const raw = ctx.query.domain?.trim() ?? '';
      if (raw === '') throw new ApiError('blank', 'domain: a domain is required (?domain=example.com)');
      const domain = parseDomain(raw);
      if (!domain) throw new ApiError('invalid', 'domain: not a domain name');
      const { catalog } = ctx.services.dataset.current;
      const [company] = catalog.companiesByDomain(domain);
      if (!company) throw new ApiError('not_found', `no company known for the domain ${domain}`);
      const { customer } = ctx.caller!;
      const facts = await gatherAccountFacts(
        {
          catalog,
          visits: ctx.services.recorder.visits,
          engagement: ctx.services.recorder.engagement,
          crm: crmStore(ctx.services),
          onError: ctx.services.recorder.reportError,
        },
        customer,
        company.company_id,
        new Date(),
      );
      const { ids, names } = segmentsPayload(matchingSegments(customer, company, facts), ctx.caller!.settings.segment_names);
      return { status: 200, body: { domain, companyId: company.company_id, segments: { ids, names } } };
    },
  }),
  apiRoute({
    method: 'GET',
    path: '/v3/segments/:segmentId/accounts',
    auth: SEGMENTS_AUTH,
    query: SegmentAccountsQuery,
    doc: segmentAccountsDocs.get,
    handler: async (ctx) => {
      const customer = ctx.caller!.customer;
      const id = segmentIdOf(ctx.req.params.segmentId, customer.id);
      const segment = segmentOr404(customer.segments, id, customer.id);
      const after = ctx.query.cursor === undefined ? null : decodeCursor(ctx.query.cursor, id);
      const { catalog } = ctx.services.dataset.current;
      const index = await segmentIndex(catalog);
      const facts = await gatherMemberFacts(
        { catalog, visits: ctx.services.recorder.visits, crm: crmStore(ctx.services), engagement: ctx.services.recorder.engagement },
        index,
        customer,
        [segment.match],
        new Date(),
      );
      const rows = index.membersOf(segment.match, listMembers(customer), facts);
      const from = after === null ? 0 : SegmentIndex.startAfter(index, rows, after);
      const accounts = accountsOf(catalog, index, rows, from, from + ctx.query.limit);
      const more = from + accounts.length < rows.length;
      return { status: 200, body: { accounts, next_cursor: more && accounts.length > 0 ? encodeCursor(id, accounts[accounts.length - 1]!.companyId) : null } };
    },
  }),
];
