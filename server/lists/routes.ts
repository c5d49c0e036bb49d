/**
 * Account lists of a customer: the hot accounts, the excluded accounts, and named lists a segment can use
 * (`in_list`, server/segments/evaluate.ts).
 *
 * Workspace (admin auth; reads `reports:read`, changes `segments:write`; each change audited):
 *   GET    /admin/api/customers/:id/lists                       → {lists: [{id, name, kind, size}]}
 *   POST   /admin/api/customers/:id/lists                       {name} → 201 {id, name, kind, size} (a named list)
 *   GET    /admin/api/customers/:id/lists/:listId?offset&limit  → {id, name, kind, size, offset, accounts}
 *   PUT    /admin/api/customers/:id/lists/:listId               {name?, company_ids?, hot_accounts?} → the summary
 *   DELETE /admin/api/customers/:id/lists/:listId               → 204 (named lists not used by a segment)
 *   POST   /admin/api/customers/:id/lists/:listId/upload?mode=add|replace&dry_run  (text/csv) → the report
 * `hot` and `excluded` are fixed ids (never deleted: PUT {company_ids: []} empties them); a named list's id is
 * given by the server (`list-` + random hex, never `hot`/`excluded`).
 *
 * The lists live in the customer record (hot_accounts, excluded_accounts, account_lists) and change in one
 * atomic store step (`changeAccountLists`: SQLite transaction, Redis compare-and-set), so every node's
 * cached customer — identification's `is_svcqa`/`is_blacklisted`, segments with `in_list` — is dropped
 * through the auth version within a second.
 *
 * The CSV upload: a bad file (./csv.ts: unreadable, no usable column, too many rows, over 5 MB) is a 4xx
 * and changes nothing; otherwise every row is reported (matched, not found, duplicated) and the matched
 * accounts are applied — rows that merely name no known account do not stop the others (they are in the
 * report to fix and upload again). One exception: a `replace` in which no row matched applies nothing
 * (`applied: false`, a reason): a wrong file never empties a list. `dry_run=true` reports without applying.
 */
import { randomBytes } from 'node:crypto';
import type { CustomerRecord } from '../../core/access-records.ts';
import { type AccountList, type FIXED_LIST_IDS, type HotAccount, MAX_LIST_ACCOUNTS, type Segment } from '../../core/customer-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { changeCustomerRecord } from '../customers/change-record.ts';
import { customerOr404 } from '../customers/lookup.ts';
import type { Catalog } from '../data/catalog.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { BodySpec, RouteDef } from '../http/route-def.ts';
import { admin, adminErrors, idParam, json, pathParam, schema } from '../openapi/kit.ts';
import type { ListState } from '../state/access/service.ts';
import { nextIds, readAccountRows, resolveRows } from './csv.ts';
import { type ListAccount, ListDetail, type ListKind, ListQuery, ListSummary, ListsAnswer, ListUpdate, NewList, UploadQuery, UploadReport } from './schema.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;
/** Largest CSV upload. */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
/** The CSV upload's body: text, read by the handler; the admin guard lets `text/csv` through for it (run-route.ts). */
const CSV_BODY: BodySpec<string> = { types: 'text', limit: MAX_UPLOAD_BYTES, media: ['text/csv'] };
/** A whole list as JSON (100,000 ids fit). */
const LIST_JSON_BODY: BodySpec<unknown> = { types: 'json', limit: MAX_UPLOAD_BYTES };
const FIXED_NAMES: Readonly<Record<(typeof FIXED_LIST_IDS)[number], string>> = { hot: 'Hot accounts', excluded: 'Excluded accounts' };
/** Ids kept in an audit record of a change (the counts are always whole). */
const AUDIT_IDS = 100;

/** One list of the state, as the routes see it. */
interface ListView {
  id: string;
  name: string;
  kind: ListKind;
  ids: string[];
}

function listsOf(s: Readonly<ListState>): ListView[] {
  return [
    { id: 'hot', name: FIXED_NAMES.hot, kind: 'hot', ids: s.hot_accounts.map((h) => h.company_id) },
    { id: 'excluded', name: FIXED_NAMES.excluded, kind: 'excluded', ids: [...s.excluded_accounts] },
    ...s.account_lists.map((l): ListView => ({ id: l.id, name: l.name, kind: 'named', ids: l.company_ids })),
  ];
}

const summary = (l: ListView): ListSummary => ({ id: l.id, name: l.name, kind: l.kind, size: l.ids.length });

function listOr404(s: Readonly<ListState>, listId: string, customerId: string): ListView {
  const list = listsOf(s).find((l) => l.id === listId);
  if (!list) throw new ApiError('not_found', `unknown list ${listId.slice(0, 64)} of customer ${customerId}`);
  return list;
}

/** The state with one list's company ids replaced (the hot list keeps the products of the ids it keeps). */
function withIds(s: Readonly<ListState>, listId: string, ids: string[], hot?: HotAccount[]): ListState {
  const next: ListState = { hot_accounts: s.hot_accounts, excluded_accounts: s.excluded_accounts, account_lists: s.account_lists };
  if (listId === 'hot') {
    const products = new Map(s.hot_accounts.map((h) => [h.company_id, h.products]));
    next.hot_accounts = hot ?? ids.map((company_id) => ({ company_id, products: products.get(company_id) ?? [] }));
  } else if (listId === 'excluded') next.excluded_accounts = ids;
  else next.account_lists = s.account_lists.map((l) => (l.id === listId ? { ...l, company_ids: ids } : l));
  return next;
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function checkNameFree(s: Readonly<ListState>, name: string, except: string | null): void {
  const taken = listsOf(s).find((l) => l.id !== except && sameName(l.name, name));
  if (taken) throw new ApiError('conflict', `a list named ${JSON.stringify(taken.name)} exists already (id ${taken.id})`);
}

function checkSize(ids: readonly string[]): void {
  if (ids.length > MAX_LIST_ACCOUNTS)
    throw new ApiError('invalid', `the list would hold ${ids.length.toLocaleString('en-US')} accounts: at most ${MAX_LIST_ACCOUNTS.toLocaleString('en-US')}`);
}

/** Segments whose rule names the list. */
const segmentsUsing = (segments: readonly Segment[], listId: string) =>
  segments.filter(
    (seg) =>
      (seg.match.in_list ?? []).some((id) => id.toLowerCase() === listId) ||
      // A lookalike seeded by the list (at the top or in a group) would have no seed left.
      [seg.match, ...(seg.match.groups ?? [])].some((level) => level.lookalike?.list?.toLowerCase() === listId),
  );

/** What an audit record keeps of a change of ids: counts, and the first ids added and removed. */
function idChange(before: readonly string[], after: readonly string[]): Record<string, unknown> {
  const had = new Set(before);
  const has = new Set(after);
  const added = after.filter((id) => !had.has(id));
  const removed = before.filter((id) => !has.has(id));
  return { size: after.length, added: added.length, removed: removed.length, added_ids: added.slice(0, AUDIT_IDS), removed_ids: removed.slice(0, AUDIT_IDS) };
}

function accountsOf(catalog: Catalog, list: ListView, customer: CustomerRecord, offset: number, limit: number): ListAccount[] {
  const products = list.kind === 'hot' ? new Map(customer.hot_accounts.map((h) => [h.company_id, h.products])) : null;
  return list.ids.slice(offset, offset + limit).map((company_id) => {
    const c = catalog.company(company_id);
    return { company_id, name: c?.name || null, domain: c?.domain || null, ...(products ? { products: products.get(company_id) ?? [] } : {}) };
  });
}

/** Company ids new to a list must be accounts of the catalog (ids it holds already stay, known or not). */
function checkKnown(catalog: Catalog, ids: readonly string[], current: readonly string[]): void {
  const have = new Set(current);
  const unknown = ids.filter((id) => !have.has(id) && catalog.company(id) === null);
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 10).map((id) => JSON.stringify(id.slice(0, 64)));
    throw new ApiError('invalid', `company_ids: no account ${shown.join(', ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''} in the catalog`);
  }
}

const newListId = () => `list-${randomBytes(5).toString('hex')}`;

/** The CSV upload takes `text/csv` only (checked once the list is known, so a wrong list is its 404 first). */
function requireCsv(contentType: string | undefined): void {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media !== 'text/csv') throw new ApiError('unsupported_type', 'the upload is a CSV file: send it as the body with Content-Type: text/csv');
}

const LIST_ID = pathParam('listId', '`hot`, `excluded`, or a named list id');
const docs = {
  lists: admin('listAccountLists', "A customer's account lists with their sizes", {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'The lists', content: json(schema(ListsAnswer)) }, ...adminErrors('read', 404) },
  }),
  create: admin('createAccountList', 'Create a named account list (empty; its id is given here)', {
    parameters: [idParam('customer')],
    requestBody: { required: true, content: json(schema(NewList, 'input')) },
    responses: { 201: { description: 'Created', content: json(schema(ListSummary)) }, ...adminErrors('write', 404, 409, 422) },
  }),
  get: admin('getAccountList', 'An account list and a page of its accounts (name and domain from the catalog)', {
    parameters: [idParam('customer'), LIST_ID],
    responses: { 200: { description: 'The list', content: json(schema(ListDetail)) }, ...adminErrors('read', 404, 422) },
  }),
  put: admin('updateAccountList', 'Rename a named list or replace the accounts of a list', {
    parameters: [idParam('customer'), LIST_ID],
    requestBody: { required: true, content: json(schema(ListUpdate, 'input')) },
    responses: { 200: { description: 'The list', content: json(schema(ListSummary)) }, ...adminErrors('write', 404, 409, 422) },
  }),
  delete: admin('deleteAccountList', 'Delete a named list (409 while a segment uses it; the hot and excluded lists are fixed)', {
    parameters: [idParam('customer'), LIST_ID],
    responses: { 204: { description: 'Deleted' }, ...adminErrors('delete', 404, 409) },
  }),
  upload: admin('uploadAccountList', 'Upload accounts as CSV (a domain or company_id column): a report of matched, not found and duplicated rows', {
    description:
      'A bad file (unreadable CSV, no domain/company_id column, over 100,000 rows or 5 MB) changes nothing (4xx). Otherwise the matched accounts are applied (`mode=add`, the default, or `replace`) and every other row is reported; a replace in which no row matched applies nothing. `dry_run=true` reports without applying.',
    parameters: [
      idParam('customer'),
      LIST_ID,
      { name: 'mode', in: 'query', required: false, schema: { type: 'string', enum: ['add', 'replace'], default: 'add' } },
      { name: 'dry_run', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false'] } },
    ],
    requestBody: { required: true, content: { 'text/csv': { schema: { type: 'string' }, example: 'domain\nnorthwind.example\n' } } },
    responses: { 200: { description: 'The report', content: json(schema(UploadReport)) }, ...adminErrors('write', 404, 409, 422) },
  }),
};

export const listAdminRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/lists',
    access: { permission: 'reports:read', customer: CUSTOMER },
    doc: docs.lists,
    handler: async (ctx) => ({ status: 200, body: { lists: listsOf(await customerOr404(ctx.services.store, ctx.req.params.id!)).map(summary) } }),
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/lists',
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: ADMIN_JSON_BODY,
    doc: docs.create,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      const { name } = parseRecord(NewList, ctx.body);
      const list = await changeCustomerRecord(
        ctx,
        'lists',
        customerId,
        (s) => {
          checkNameFree(s, name, null);
          const created: AccountList = { id: newListId(), name, company_ids: [] };
          return {
            next: { hot_accounts: s.hot_accounts, excluded_accounts: s.excluded_accounts, account_lists: [...s.account_lists, created] },
            result: created,
          };
        },
        (created) => ({ action: 'list.create', target: created.id, after: { name: created.name, size: 0 } }),
      );
      return { status: 201, body: { id: list.id, name: list.name, kind: 'named', size: 0 } satisfies ListSummary };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/lists/:listId',
    access: { permission: 'reports:read', customer: CUSTOMER },
    query: ListQuery,
    doc: docs.get,
    handler: async (ctx) => {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const list = listOr404(customer, ctx.req.params.listId!, customer.id);
      const { offset, limit } = ctx.query;
      const accounts = accountsOf(ctx.services.dataset.current.catalog, list, customer, offset, limit);
      return { status: 200, body: { ...summary(list), offset, accounts } satisfies ListDetail };
    },
  }),
  adminRoute({
    method: 'PUT',
    path: '/admin/api/customers/:id/lists/:listId',
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: LIST_JSON_BODY,
    doc: docs.put,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      const listId = ctx.req.params.listId!;
      const { catalog } = ctx.services.dataset.current;
      const { after } = await changeCustomerRecord(
        ctx,
        'lists',
        customerId,
        (s) => {
          const before = listOr404(s, listId, customerId);
          const update = parseRecord(ListUpdate, ctx.body);
          if (update.name !== undefined && before.kind !== 'named') throw new ApiError('invalid', `name: the ${listId} list is fixed: it cannot be renamed`);
          if (update.hot_accounts !== undefined && before.kind !== 'hot')
            throw new ApiError('invalid', 'hot_accounts: only the hot list has products; give company_ids');
          if (update.name !== undefined) checkNameFree(s, update.name, listId);
          let next: ListState = s;
          if (update.company_ids !== undefined || update.hot_accounts !== undefined) {
            const ids = [...new Set(update.company_ids ?? update.hot_accounts!.map((h) => h.company_id))];
            checkSize(ids);
            checkKnown(catalog, ids, before.ids);
            const hot = update.hot_accounts && [...new Map(update.hot_accounts.map((h) => [h.company_id, h])).values()];
            next = withIds(s, listId, ids, hot);
          }
          if (update.name !== undefined) next = { ...next, account_lists: next.account_lists.map((l) => (l.id === listId ? { ...l, name: update.name! } : l)) };
          return { next, result: { before, after: listOr404(next, listId, customerId) } };
        },
        ({ before, after }) => ({
          action: 'list.update',
          target: listId,
          before: { name: before.name, size: before.ids.length },
          after: { name: after.name, ...idChange(before.ids, after.ids) },
        }),
      );
      return { status: 200, body: summary(after) };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/customers/:id/lists/:listId',
    access: { permission: 'segments:write', customer: CUSTOMER },
    doc: docs.delete,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      const listId = ctx.req.params.listId!;
      await changeCustomerRecord(
        ctx,
        'lists',
        customerId,
        (s) => {
          const before = listOr404(s, listId, customerId);
          if (before.kind !== 'named') throw new ApiError('conflict', `the ${listId} list is fixed: empty it with PUT {"company_ids": []}`);
          const users = segmentsUsing(s.segments, listId);
          if (users.length > 0)
            throw new ApiError(
              'conflict',
              `the list is used by the segment${users.length > 1 ? 's' : ''} ${users.map((u) => `${JSON.stringify(u.name)} (${u.id})`).join(', ')}: change their rules first`,
            );
          return {
            next: { hot_accounts: s.hot_accounts, excluded_accounts: s.excluded_accounts, account_lists: s.account_lists.filter((l) => l.id !== listId) },
            result: before,
          };
        },
        (before) => ({ action: 'list.delete', target: listId, before: { name: before.name, size: before.ids.length, ids: before.ids.slice(0, AUDIT_IDS) } }),
      );
      return { status: 204 };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/lists/:listId/upload',
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: CSV_BODY,
    query: UploadQuery,
    doc: docs.upload,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      const listId = ctx.req.params.listId!;
      const { mode } = ctx.query;
      const dryRun = ctx.query.dry_run === 'true' || ctx.query.dry_run === '1';
      // The list first (404), then the body's type (415), then the file (4xx for a bad one): nothing changes before all pass.
      listOr404(await customerOr404(ctx.services.store, customerId), listId, customerId);
      requireCsv(ctx.req.get('content-type'));
      const rows = readAccountRows(ctx.body);
      const resolved = resolveRows(rows, ctx.services.dataset.current.catalog);
      const decide = (s: Readonly<ListState>) => {
        const before = listOr404(s, listId, customerId);
        const ids = nextIds(before.ids, resolved.matched, mode);
        const change = idChange(before.ids, ids);
        const refused = dryRun
          ? 'dry run: nothing was changed'
          : mode === 'replace' && resolved.matched.length === 0
            ? 'no row matched an account: the list was left as it was'
            : null;
        if (refused === null) checkSize(ids);
        const report: UploadReport = {
          mode,
          rows: rows.length,
          matched: resolved.matched.length,
          not_found: resolved.not_found,
          duplicates: resolved.duplicates,
          applied: refused === null,
          ...(refused ? { reason: refused } : {}),
          added: change.added as number,
          removed: change.removed as number,
          size: ids.length,
        };
        return { ids, change, refused, before, report };
      };
      const first = decide(await customerOr404(ctx.services.store, customerId));
      if (first.refused !== null) return { status: 200, body: first.report };
      const { report } = await changeCustomerRecord(
        ctx,
        'lists',
        customerId,
        (s) => {
          const decided = decide(s);
          return { next: withIds(s, listId, decided.ids), result: decided };
        },
        ({ before, report: r, change }) => ({
          action: 'list.upload',
          target: listId,
          before: { name: before.name, size: before.ids.length },
          after: { mode, rows: r.rows, matched: r.matched, not_found: r.not_found.length, duplicates: r.duplicates.length, ...change },
        }),
      );
      return { status: 200, body: report };
    },
  }),
];
