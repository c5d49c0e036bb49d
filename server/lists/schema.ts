/**
 * The bodies and answers of the account-list routes (./routes.ts): the zod schemas are the validation,
 * the types and the OpenAPI document's schemas.
 */
import { z } from 'zod';
import { AccountList, HotAccount, MAX_LIST_ACCOUNTS } from '../../core/customer-records.ts';

export const LIST_KINDS = ['hot', 'excluded', 'named'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

/** POST /admin/api/customers/:id/lists: a named list, empty; its id is given by the server. */
export const NewList = z.object({ name: AccountList.shape.name }).strict();
export type NewList = z.infer<typeof NewList>;

/** PUT …/lists/:listId: the fields given replace the list's (at least one). */
export const ListUpdate = z
  .object({
    /** Named lists only. */
    name: AccountList.shape.name,
    /** The whole list of company ids (the hot list keeps the products of the ids it already had). */
    company_ids: z.array(z.string().trim().min(1).max(200)).max(MAX_LIST_ACCOUNTS),
    /** The hot list only: the whole list with products. */
    hot_accounts: z.array(HotAccount).max(MAX_LIST_ACCOUNTS),
  })
  .partial()
  .strict()
  .refine((u) => u.name !== undefined || u.company_ids !== undefined || u.hot_accounts !== undefined, {
    message: 'nothing to change: give name, company_ids or (the hot list) hot_accounts',
  })
  .refine((u) => u.company_ids === undefined || u.hot_accounts === undefined, { message: 'give company_ids or hot_accounts, not both' });
export type ListUpdate = z.infer<typeof ListUpdate>;

export const ListSummary = z.object({
  id: z.string().describe('`hot`, `excluded`, or the named list id'),
  name: z.string(),
  kind: z.enum(LIST_KINDS),
  size: z.number().int().min(0).describe('Company ids in the list'),
});
export type ListSummary = z.infer<typeof ListSummary>;

export const ListsAnswer = z.object({ lists: z.array(ListSummary).describe('Hot, excluded, then the named lists in creation order') });
export type ListsAnswer = z.infer<typeof ListsAnswer>;

export const ListAccount = z.object({
  company_id: z.string(),
  name: z.string().nullable().describe('From the catalog; null when the catalog no longer knows the company'),
  domain: z.string().nullable(),
  products: z.array(z.string()).optional().describe('Hot accounts: the products the flag is for (empty: every product)'),
});
export type ListAccount = z.infer<typeof ListAccount>;

export const ListDetail = ListSummary.extend({
  offset: z.number().int().min(0),
  accounts: z.array(ListAccount).describe('The accounts from `offset`, in list order (at most `limit`)'),
});
export type ListDetail = z.infer<typeof ListDetail>;

const queryValue = () => z.string({ error: 'must be given at most once' }).max(32).optional();

export const ListQuery = z.object({
  offset: z.coerce.number({ error: 'must be a whole number ≥ 0' }).int().min(0).default(0),
  limit: z.coerce.number({ error: 'must be a whole number from 1 to 5000' }).int().min(1).max(5000).default(500),
});

export const UPLOAD_MODES = ['add', 'replace'] as const;
export const UploadQuery = z.object({
  mode: z.enum(UPLOAD_MODES, { error: 'must be add or replace' }).default('add'),
  dry_run: queryValue().refine((v) => v === undefined || ['true', 'false', '1', '0'].includes(v), 'must be true or false'),
});

const Row = z.object({ row: z.number().int().describe('The row as a spreadsheet numbers it (the header is row 1)'), value: z.string() });
export type ReportRow = z.infer<typeof Row>;

export const UploadReport = z.object({
  mode: z.enum(UPLOAD_MODES),
  rows: z.number().int().describe('Rows of accounts read (the header apart)'),
  matched: z.number().int().describe('Rows that named an account of the catalog (each account once)'),
  not_found: z.array(Row).describe('Rows whose domain or company id names no account of the catalog (or is blank)'),
  duplicates: z.array(Row).describe('Rows naming an account an earlier row named already'),
  applied: z.boolean().describe('Whether the list was changed (false for a dry run, or a replace in which no row matched)'),
  reason: z.string().optional().describe('Why nothing was applied'),
  added: z.number().int().describe('Accounts the list gained'),
  removed: z.number().int().describe('Accounts the list lost (replace)'),
  size: z.number().int().describe('Accounts in the list after the upload (as it would be, when not applied)'),
});
export type UploadReport = z.infer<typeof UploadReport>;
