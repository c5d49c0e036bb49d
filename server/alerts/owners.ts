/**
 * Who owns an account, for routing an alert to its owner: the CRM's owner (the CRM sync reads it back per
 * account: CrmAccountRecord.owner_email), else the customer's owners list (a row per account, by company id
 * or domain), else the territory rules (country, region, industry, size band → owner; in order, the first
 * that matches). The first source that names an owner wins. Mention ids (a Slack member id, a Teams mention)
 * come with the owners list's or rule's row; a CRM owner gets those of a row naming the same email.
 *
 * The owners list is uploaded as one CSV (PUT …/owners, replaced whole): a row with a `domain` or
 * `company_id` is an account's owner; a row with neither but a `country`, `region`, `industry` or `size`
 * is a territory rule (several values in a cell separated by `;`). Columns: owner_email (required),
 * slack_member_id, teams_mention. A bad row refuses the whole file, naming the row: nothing half-applied.
 */
import { parse } from 'csv-parse/sync';
import {
  MAX_OWNER_ROWS,
  MAX_TERRITORY_RULES,
  OwnerRow,
  type OwnerRow as OwnerRowType,
  TerritoryRule,
  type TerritoryRule as TerritoryRuleType,
} from '../../core/alert-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { parseDomain } from '../net/email.ts';
import type { AlertStateStore } from '../state/alerts/store.ts';
import { ownerKey } from '../state/alerts/store.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { AlertOwner } from '../webhooks/events.ts';

const COLUMNS: Readonly<Record<string, string>> = {
  domain: 'domain',
  website: 'domain',
  companyid: 'company_id',
  owneremail: 'owner_email',
  owner: 'owner_email',
  email: 'owner_email',
  slackmemberid: 'slack_member_id',
  slack: 'slack_member_id',
  slackid: 'slack_member_id',
  teamsmention: 'teams_mention',
  teams: 'teams_mention',
  country: 'country',
  region: 'region',
  industry: 'industry',
  size: 'size',
  sizeband: 'size',
  employeerange: 'size',
};
const columnKey = (h: string) =>
  h
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');

export interface OwnersUpload {
  owners: OwnerRowType[];
  territories: TerritoryRuleType[];
}

/** The owners list and territory rules of a CSV text; ApiError (422) naming the row for a bad file. */
export function readOwnersCsv(text: string): OwnersUpload {
  if (text.trim() === '') throw new ApiError('invalid', 'the file is empty: send a CSV with a header row (domain or company_id, owner_email, …)');
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, to: MAX_OWNER_ROWS + MAX_TERRITORY_RULES + 2 });
  } catch (e) {
    throw new ApiError('invalid', `the file is not readable CSV: ${(e as Error).message.slice(0, 200)}; nothing was changed`);
  }
  const [header, ...rows] = records;
  if (!header) throw new ApiError('invalid', 'the file is empty');
  const cols = header.map((h) => COLUMNS[columnKey(h)] ?? null);
  if (!cols.includes('owner_email')) throw new ApiError('invalid', 'the file has no owner_email column; nothing was changed');
  const owners = new Map<string, OwnerRowType>();
  const territories: TerritoryRuleType[] = [];
  const list = (v: string | undefined) =>
    (v ?? '')
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean);
  rows.forEach((fields, i) => {
    const row = i + 2;
    const cell = (name: string) => {
      const at = cols.indexOf(name);
      return at < 0 ? '' : (fields[at] ?? '').trim();
    };
    const mention = { slack_member_id: cell('slack_member_id') || null, teams_mention: cell('teams_mention') || null };
    const fail = (message: string) => new ApiError('invalid', `row ${row}: ${message}; nothing was changed`);
    const issue = (r: { error: { issues: { path: PropertyKey[]; message: string }[] } }) =>
      fail(`${String(r.error.issues[0]?.path.join('.'))}: ${r.error.issues[0]?.message}`);
    const companyId = cell('company_id');
    const domainText = cell('domain');
    if (companyId || domainText) {
      let key: string;
      if (companyId) key = ownerKey.company(companyId);
      else {
        const domain = parseDomain(domainText);
        if (!domain) throw fail(`domain: not a domain (${JSON.stringify(domainText.slice(0, 60))})`);
        key = ownerKey.domain(domain);
      }
      const parsed = OwnerRow.safeParse({ key, owner_email: cell('owner_email'), ...mention });
      if (!parsed.success) throw issue(parsed);
      owners.set(key, parsed.data);
      return;
    }
    const rule = {
      ...(list(cell('country')).length ? { country: list(cell('country')) } : {}),
      ...(list(cell('region')).length ? { region: list(cell('region')) } : {}),
      ...(list(cell('industry')).length ? { industry: list(cell('industry')) } : {}),
      ...(list(cell('size')).length ? { size: list(cell('size')) } : {}),
    };
    if (Object.keys(rule).length === 0) throw fail('neither an account (domain, company_id) nor a territory (country, region, industry, size)');
    const parsed = TerritoryRule.safeParse({ ...rule, owner_email: cell('owner_email'), ...mention });
    if (!parsed.success) throw issue(parsed);
    territories.push(parsed.data);
  });
  if (owners.size > MAX_OWNER_ROWS) throw new ApiError('too_large', `more than ${MAX_OWNER_ROWS} account rows: nothing was changed`);
  if (territories.length > MAX_TERRITORY_RULES) throw new ApiError('too_large', `more than ${MAX_TERRITORY_RULES} territory rules: nothing was changed`);
  return { owners: [...owners.values()], territories };
}

const same = (values: readonly string[] | undefined, value: string) =>
  values === undefined || (value !== '' && values.some((v) => v.toLowerCase() === value.toLowerCase()));

/** The first rule every given field of which the company matches. */
export function territoryOf(rules: readonly TerritoryRuleType[], company: Pick<CompanyRow, 'country' | 'region' | 'industry' | 'employee_range'>) {
  return (
    rules.find(
      (r) => same(r.country, company.country) && same(r.region, company.region) && same(r.industry, company.industry) && same(r.size, company.employee_range),
    ) ?? null
  );
}

export interface OwnerDeps {
  alerts: AlertStateStore;
  /** The CRM sync's store (owners read back), when the server runs the sync. */
  crm: CrmStore | null;
  /** Whether the email is a user of the customer's workspace. */
  isUser(customerId: string, email: string): Promise<boolean>;
}

/** The account's owner, or null when no source names one. */
export async function findOwner(deps: OwnerDeps, customerId: string, company: CompanyRow): Promise<AlertOwner | null> {
  const keys = [ownerKey.company(company.company_id), ...(company.domain ? [ownerKey.domain(company.domain)] : [])];
  const [crmRecords, rows, rules] = await Promise.all([
    deps.crm
      ? Promise.all((['hubspot', 'salesforce'] as const).map((p) => deps.crm!.getAccounts(customerId, p, [company.company_id]).catch(() => [])))
      : Promise.resolve([]),
    deps.alerts.ownerRows(customerId, keys),
    deps.alerts.territories(customerId),
  ]);
  const row = rows.find((r) => r.key === keys[0]) ?? rows[0] ?? null;
  const rule = territoryOf(rules, company);
  const crmOwner =
    crmRecords
      .flat()
      .find((r) => r.owner_email)
      ?.owner_email?.toLowerCase() ?? null;
  const pick = (email: string, source: AlertOwner['source'], ids: { slack_member_id: string | null; teams_mention: string | null } | null) => ({
    email,
    source,
    slack_member_id: ids?.slack_member_id ?? null,
    teams_mention: ids?.teams_mention ?? null,
  });
  let owner: Omit<AlertOwner, 'is_user'> | null = null;
  if (crmOwner) owner = pick(crmOwner, 'crm', [row, rule].find((r) => r?.owner_email === crmOwner) ?? null);
  else if (row) owner = pick(row.owner_email, 'owners_list', row);
  else if (rule) owner = pick(rule.owner_email, 'territory', rule);
  return owner ? { ...owner, is_user: await deps.isUser(customerId, owner.email) } : null;
}
