/** Pure helpers of the Accounts page: the words of scores' factors, lists, sessions, the CRM side, the CSV file name. */
import type { CrmProvider } from '../../core/crm-records.ts';
import type { AccountSession } from '../../core/visit-records.ts';
import type { AccountCrm, AccountLists, ExplainedScore } from '../accounts/account.ts';

/** The profile dimensions in the model's order, with their full weight (server/scoring/README.md). */
const PROFILE_DIMENSIONS = [
  ['industry', 'Industry', 40],
  ['employee_range', 'Employees', 25],
  ['revenue_range', 'Revenue', 20],
  ['region', 'Region', 15],
] as const;

const num = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/** One line per factor of the intent score: each signal, then each page-view day and path. */
export function intentFactors(score: ExplainedScore): string[] {
  const { signals, page_views } = score.factors.intent;
  return [
    ...signals.map((s) => `Intent signal “${s.topic}”: strength ${num(s.strength)}, ${num(s.age_days)} days old (× ${s.weight}) → ${num(s.points)} points`),
    ...page_views.map(
      (p) =>
        `${p.high_intent ? 'High-intent page' : 'Page'} ${p.path} on ${p.day}: ${p.page_views} view${p.page_views === 1 ? '' : 's'} (× ${p.weight}) → ${num(p.points)} points`,
    ),
  ];
}

/** One line per ICP dimension of the profile score: points earned of its weight. */
export function profileFactors(score: ExplainedScore): string[] {
  return PROFILE_DIMENSIONS.map(([key, label, weight]) => `${label}: ${num(score.factors.profile[key])} of ${weight}`);
}

/** The lists the account is in, as badges' words. */
export function listLabels(lists: AccountLists): string[] {
  return [
    ...(lists.hot ? [lists.hot_products.length ? `Hot account (${lists.hot_products.join(', ')})` : 'Hot account'] : []),
    ...(lists.excluded ? ['Excluded'] : []),
    ...lists.named.map((l) => l.name),
  ];
}

/** "3 pages in 4 min" (pages past the kept ones counted): a session's size and length. */
export function sessionSummary(s: Pick<AccountSession, 'first_seen' | 'last_seen' | 'page_views'>): string {
  const minutes = Math.round((Date.parse(s.last_seen) - Date.parse(s.first_seen)) / 60_000);
  const views = `${s.page_views} page${s.page_views === 1 ? '' : 's'}`;
  return minutes >= 1 ? `${views} in ${minutes} min` : views;
}

const CRM_NAMES: Readonly<Record<CrmProvider, string>> = { hubspot: 'HubSpot', salesforce: 'Salesforce' };

/**
 * What one CRM says of the account, in a line: "Owner: Jane Doe (jane@acme.com) · HubSpot lifecycle stage:
 * opportunity · HubSpot type: PROSPECT" (several records of the domain: their number; the owner and stage
 * are the first record's).
 */
export function crmLine(crm: AccountCrm): string {
  const name = CRM_NAMES[crm.provider];
  const owner =
    crm.owner_name && crm.owner_email
      ? `Owner: ${crm.owner_name} (${crm.owner_email})`
      : crm.owner_email || crm.owner_name
        ? `Owner: ${crm.owner_email || crm.owner_name}`
        : `No ${name} owner`;
  const stages = [...(crm.stage ? [`${name} lifecycle stage: ${crm.stage}`] : []), ...(crm.type ? [`${name} type: ${crm.type}`] : [])];
  return [
    owner,
    ...(stages.length > 0 ? stages : [`no ${name} stage or type`]),
    ...(crm.crm_ids.length > 1 ? [`${crm.crm_ids.length} ${name} records of this domain`] : []),
  ].join(' · ');
}

/** The file name of an account's CSV download. */
export function accountCsvFileName(customerId: string, companyId: string, from: string, to: string): string {
  return `account-${customerId}-${companyId}-${from}-${to}.csv`;
}

/** The letters of the account's logo placeholder: the first letters of its name's first two words ("Acme Corp" → "AC"). */
export function initials(name: string | null, domain: string | null): string {
  const words = (name ?? '').split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length > 0)
    return words
      .slice(0, 2)
      .map((w) => [...w][0]!.toUpperCase())
      .join('');
  const host = (domain ?? '').replace(/^www\./, '');
  return host ? [...host][0]!.toUpperCase() : '?';
}

/** The account's owner as the header card says it: the first CRM that names one ("Jane Doe · HubSpot"), or null. */
export function accountOwner(crm: readonly AccountCrm[]): { owner: string; stage: string | null } | null {
  const first = crm.find((c) => c.owner_name || c.owner_email);
  if (!first) return null;
  return { owner: `${first.owner_name || first.owner_email} · ${CRM_NAMES[first.provider]}`, stage: first.stage ?? first.type };
}

/** One intent topic of the account across its products: the strongest signal and the products it counts for. */
export interface AccountTopic {
  topic: string;
  strength: number;
  age_days: number;
  products: string[];
}

/** The account's intent topics (its scores' signals), strongest first, each once with the products it counts for. */
export function accountTopics(scores: readonly ExplainedScore[]): AccountTopic[] {
  const byTopic = new Map<string, AccountTopic>();
  for (const s of scores) {
    for (const signal of s.factors.intent.signals) {
      const seen = byTopic.get(signal.topic);
      if (!seen) {
        byTopic.set(signal.topic, { topic: signal.topic, strength: signal.strength, age_days: signal.age_days, products: [s.product_display_name] });
        continue;
      }
      if (!seen.products.includes(s.product_display_name)) seen.products.push(s.product_display_name);
      if (signal.strength > seen.strength) Object.assign(seen, { strength: signal.strength, age_days: signal.age_days });
    }
  }
  return [...byTopic.values()].sort((a, b) => b.strength - a.strength || a.topic.localeCompare(b.topic));
}
