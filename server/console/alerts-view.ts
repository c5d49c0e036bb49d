/**
 * The Alerts page's words and form (ui/AlertsPage.tsx): an alert's trigger, filters, destination and owner
 * routing said in a sentence each, the create/edit form's fields and their `POST|PATCH …/alerts` body, a
 * "Send test" delivery's outcome, and the owners list upload's report. Pure, so each is pinned by a test.
 *
 * The records are core/alert-records.ts's; only their types are imported (its zod schemas stay out of the
 * console's bundle), so the few values the form offers are written here and checked against the records
 * by alerts-view.test.ts.
 */
import type { AlertDestinationType, AlertFilter, AlertTrigger, AlertTriggerType, RouteToOwner } from '../../core/alert-records.ts';
import { BUYING_STAGES } from '../../core/vocabulary.ts';
import type { AlertView } from '../alerts/schema.ts';
import type { DeliveryRecord } from '../webhooks/schema.ts';
import type { AlertPatchBody, NewAlertBody } from './admin-client.ts';
import type { Validated } from './ui/use-create-form.ts';

/** What the trigger select offers, in the records' order. */
export const TRIGGER_LABELS: Readonly<Record<AlertTriggerType, string>> = {
  segment_entered: 'An account enters a segment',
  hot: 'An account becomes hot',
  stage_reached: 'An account reaches a buying stage',
  first_visit: 'An account comes back after days without a visit',
  visited: 'An account views pages matching a pattern',
};

export const DESTINATION_LABELS: Readonly<Record<AlertDestinationType, string>> = {
  slack: 'Slack',
  teams: 'Microsoft Teams',
  email: 'Email',
  webhook: 'Webhook (signed JSON)',
};

/** The stages an account can reach (Target is where every account starts). */
export const REACHABLE_STAGES: readonly string[] = BUYING_STAGES.filter((s) => s !== 'Target');

/** Limits the API checks too (core/alert-records.ts), said before the request. */
const MAX_FIRST_VISIT_DAYS = 90;
const MAX_MIN_PAGE_VIEWS = 50;
const MAX_RECIPIENTS = 20;
const MAX_HOT_PATHS = 50;
const PATH_PATTERN = /^\/[^\s?#]*$/;
const EMAIL = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/;

export type OwnerFilter = '' | 'with' | 'without';

export interface AlertFormFields {
  name: string;
  trigger: AlertTriggerType;
  /** segment_entered: a segment id, '' until chosen. */
  segment: string;
  /** hot: comma-separated path patterns. */
  hot_paths: string;
  /** stage_reached. */
  product: string;
  stage: string;
  /** first_visit. */
  days: string;
  /** visited. */
  path: string;
  filter_segments: number[];
  filter_lists: string[];
  min_page_views: string;
  owner: OwnerFilter;
  destination: AlertDestinationType;
  /** Slack, Teams, webhook. Editing: empty keeps the saved (masked) URL. */
  url: string;
  /** Email: addresses separated by commas, semicolons or spaces. */
  to: string;
  route_to_owner: boolean;
  instead_of_channel: boolean;
  /** Addresses mailed when no reachable owner is found. */
  fallback: string;
}

export function emptyAlertForm(): AlertFormFields {
  return {
    name: '',
    trigger: 'segment_entered',
    segment: '',
    hot_paths: '',
    product: '',
    stage: 'Decision',
    days: '30',
    path: '',
    filter_segments: [],
    filter_lists: [],
    min_page_views: '',
    owner: '',
    destination: 'slack',
    url: '',
    to: '',
    route_to_owner: false,
    instead_of_channel: false,
    fallback: '',
  };
}

/** The form of a saved alert, to edit it: its URL is masked in the answer, so the field starts empty (kept unless replaced). */
export function alertFormOf(a: AlertView): AlertFormFields {
  const t = a.trigger;
  return {
    ...emptyAlertForm(),
    name: a.name,
    trigger: t.type,
    ...(t.type === 'segment_entered' ? { segment: String(t.segment) } : {}),
    ...(t.type === 'hot' ? { hot_paths: t.hot_paths.join(', ') } : {}),
    ...(t.type === 'stage_reached' ? { product: t.product, stage: t.stage } : {}),
    ...(t.type === 'first_visit' ? { days: String(t.days) } : {}),
    ...(t.type === 'visited' ? { path: t.path } : {}),
    filter_segments: [...(a.filter.segments ?? [])],
    filter_lists: [...(a.filter.lists ?? [])],
    min_page_views: a.filter.min_page_views === undefined ? '' : String(a.filter.min_page_views),
    owner: a.filter.owner ?? '',
    destination: a.destination.type,
    to: (a.destination.to ?? []).join(', '),
    route_to_owner: a.route_to_owner !== null,
    instead_of_channel: a.route_to_owner?.instead_of_channel ?? false,
    fallback: (a.route_to_owner?.fallback?.to ?? []).join(', '),
  };
}

type Result<T> = { ok: true; value: T } | { ok: false; field: keyof AlertFormFields & string; message: string };
const fail = (field: keyof AlertFormFields & string, message: string): { ok: false; field: keyof AlertFormFields & string; message: string } => ({
  ok: false,
  field,
  message,
});

const splitList = (text: string, by: RegExp) =>
  text
    .split(by)
    .map((s) => s.trim())
    .filter(Boolean);

/** Addresses of a text box: each one checked, 1–20 of them (`optional`: none is fine). */
function addresses(field: 'to' | 'fallback', text: string, optional: boolean): Result<string[]> {
  const list = splitList(text, /[\s,;]+/);
  if (list.length === 0) return optional ? { ok: true, value: [] } : fail(field, 'Give at least one email address.');
  const bad = list.find((a) => !EMAIL.test(a));
  if (bad !== undefined) return fail(field, `“${bad}” is not an email address.`);
  if (list.length > MAX_RECIPIENTS) return fail(field, `At most ${MAX_RECIPIENTS} addresses.`);
  return { ok: true, value: [...new Set(list.map((a) => a.toLowerCase()))] };
}

const wholeNumber = (text: string, min: number, max: number): number | null => {
  if (!/^\d+$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= min && n <= max ? n : null;
};

function triggerOf(f: AlertFormFields): Result<AlertTrigger> {
  switch (f.trigger) {
    case 'segment_entered':
      return f.segment === ''
        ? fail('segment', 'Choose the segment an account enters.')
        : { ok: true, value: { type: 'segment_entered', segment: Number(f.segment) } };
    case 'hot': {
      const paths = splitList(f.hot_paths, /,/);
      const bad = paths.find((p) => !PATH_PATTERN.test(p));
      if (bad !== undefined) return fail('hot_paths', `“${bad}” is not a path pattern: it starts with / and has no spaces, ? or # (e.g. /pricing*).`);
      if (paths.length > MAX_HOT_PATHS) return fail('hot_paths', `At most ${MAX_HOT_PATHS} patterns.`);
      return { ok: true, value: { type: 'hot', hot_paths: paths } };
    }
    case 'stage_reached':
      if (!f.product) return fail('product', 'Choose the product whose buying stage counts.');
      if (!REACHABLE_STAGES.includes(f.stage)) return fail('stage', 'Choose a buying stage.');
      return { ok: true, value: { type: 'stage_reached', product: f.product, stage: f.stage as Extract<AlertTrigger, { type: 'stage_reached' }>['stage'] } };
    case 'first_visit': {
      const days = wholeNumber(f.days, 1, MAX_FIRST_VISIT_DAYS);
      return days === null ? fail('days', `A whole number of days from 1 to ${MAX_FIRST_VISIT_DAYS}.`) : { ok: true, value: { type: 'first_visit', days } };
    }
    case 'visited': {
      const path = f.path.trim();
      return PATH_PATTERN.test(path)
        ? { ok: true, value: { type: 'visited', path } }
        : fail('path', 'A path pattern starts with / and has no spaces, ? or # (e.g. /pricing*).');
    }
  }
}

function filterOf(f: AlertFormFields): Result<AlertFilter> {
  const filter: AlertFilter = {};
  if (f.filter_segments.length > 0) filter.segments = [...f.filter_segments];
  if (f.filter_lists.length > 0) filter.lists = [...f.filter_lists];
  if (f.min_page_views.trim() !== '') {
    const n = wholeNumber(f.min_page_views, 1, MAX_MIN_PAGE_VIEWS);
    if (n === null) return fail('min_page_views', `A whole number of page views from 1 to ${MAX_MIN_PAGE_VIEWS}, or empty for any.`);
    filter.min_page_views = n;
  }
  if (f.owner) filter.owner = f.owner;
  return { ok: true, value: filter };
}

const looksLikeUrl = (text: string) => {
  try {
    const u = new URL(text);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
};

/** The destination of the form; null when editing and nothing about it changed (the saved one is kept). */
function destinationOf(f: AlertFormFields, saved: AlertView | null): Result<NewAlertBody['destination'] | null> {
  if (f.destination === 'email') {
    const to = addresses('to', f.to, false);
    return to.ok ? { ok: true, value: { type: 'email', to: to.value } } : to;
  }
  const url = f.url.trim();
  if (url === '' && saved?.destination.type === f.destination) return { ok: true, value: null };
  if (url === '') return fail('url', f.destination === 'webhook' ? 'Give the receiver’s URL.' : `Give the ${DESTINATION_LABELS[f.destination]} webhook URL.`);
  if (!looksLikeUrl(url)) return fail('url', 'Give the whole URL, starting with https://.');
  return { ok: true, value: { type: f.destination, url } };
}

function routingOf(f: AlertFormFields): Result<RouteToOwner | null> {
  if (!f.route_to_owner) return { ok: true, value: null };
  const fallback = addresses('fallback', f.fallback, true);
  if (!fallback.ok) return fallback;
  return { ok: true, value: { instead_of_channel: f.instead_of_channel, ...(fallback.value.length > 0 ? { fallback: { to: fallback.value } } : {}) } };
}

/**
 * The request body of the form: a new alert's (`saved` null) or the change of `saved` — every field the
 * form shows, but the destination only when it changed (a blank URL keeps the saved one).
 */
export function alertBody(f: AlertFormFields, saved: AlertView | null): Validated<AlertFormFields, NewAlertBody | AlertPatchBody> {
  const name = f.name.trim();
  if (!name) return fail('name', 'Give the alert a name.');
  if (name.length > 120) return fail('name', 'At most 120 characters.');
  const trigger = triggerOf(f);
  if (!trigger.ok) return trigger;
  const filter = filterOf(f);
  if (!filter.ok) return filter;
  const destination = destinationOf(f, saved);
  if (!destination.ok) return destination;
  const routing = routingOf(f);
  if (!routing.ok) return routing;
  if (saved) {
    const patch: AlertPatchBody = { name, trigger: trigger.value, filter: filter.value, route_to_owner: routing.value };
    if (destination.value) patch.destination = destination.value;
    return { ok: true, body: patch };
  }
  const body: NewAlertBody = { name, trigger: trigger.value, filter: filter.value, destination: destination.value! };
  if (routing.value) body.route_to_owner = routing.value;
  return { ok: true, body };
}

export interface Names {
  segment(id: number): string;
  list(id: string): string;
}

const joinOr = (items: readonly string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`);

/** "When an account enters Enterprise Software". */
export function triggerText(t: AlertTrigger, names: Names): string {
  switch (t.type) {
    case 'segment_entered':
      return `When an account enters ${names.segment(t.segment)}`;
    case 'hot':
      return t.hot_paths.length > 0
        ? `When an account becomes hot: a hot account, or a view of ${joinOr(t.hot_paths)}`
        : 'When an account becomes hot: one of the hot accounts visits';
    case 'stage_reached':
      return `When an account reaches ${t.stage} for ${t.product}`;
    case 'first_visit':
      return `When an account visits for the first time in ${t.days} ${t.days === 1 ? 'day' : 'days'}`;
    case 'visited':
      return `When an account views ${t.path}`;
  }
}

/** "Only accounts in Enterprise Software, with at least 3 page views in the visit", or null without filters. */
export function filterText(f: AlertFilter, names: Names): string | null {
  const parts: string[] = [];
  if (f.segments?.length) parts.push(`in ${joinOr(f.segments.map(names.segment))}`);
  if (f.lists?.length) parts.push(`on the list ${joinOr(f.lists.map(names.list))}`);
  if (f.min_page_views !== undefined) parts.push(`with at least ${f.min_page_views} page ${f.min_page_views === 1 ? 'view' : 'views'} in the visit`);
  if (f.owner === 'with') parts.push('with an owner');
  if (f.owner === 'without') parts.push('without an owner');
  return parts.length > 0 ? `Only accounts ${parts.join(', ')}` : null;
}

/** "To the Microsoft Teams channel https://…" (a chat URL is masked by the API). */
export function destinationText(d: AlertView['destination']): string {
  switch (d.type) {
    case 'slack':
      return `To the Slack channel ${d.url ?? ''}`.trim();
    case 'teams':
      return `To the Microsoft Teams channel ${d.url ?? ''}`.trim();
    case 'email':
      return `By email to ${(d.to ?? []).join(', ')}`;
    case 'webhook':
      return `Signed JSON to ${d.url ?? ''}`.trim();
  }
}

/** How the alert reaches the account's owner, or null when it does not. */
export function ownerText(r: RouteToOwner | null, destination: AlertDestinationType): string | null {
  if (r === null) return null;
  const mention =
    destination === 'slack'
      ? ' (@mentioned in the channel with a Slack member id)'
      : destination === 'teams'
        ? ' (@mentioned in the channel with a Teams mention)'
        : '';
  const head = r.instead_of_channel
    ? 'To the account’s owner instead: mailed when a user of this workspace; the channel hears only of accounts without one'
    : `Also to the account’s owner: mailed when a user of this workspace${mention}`;
  return r.fallback?.to.length ? `${head}. No owner found: mailed to ${r.fallback.to.join(', ')}.` : `${head}.`;
}

/** Whether a test's delivery has an outcome to show (delivered, given up, or an attempt that failed and waits for its retry). */
export const testSettled = (d: DeliveryRecord | null): boolean => d !== null && (d.status !== 'pending' || d.attempts > 0);

const answered = (d: DeliveryRecord) => d.last_error ?? (d.last_status === null ? 'no answer' : `HTTP ${d.last_status}`);

/** What a "Send test" came to, from its delivery in the log (null: not in the log yet). */
export function testResultText(d: DeliveryRecord | null): string {
  if (d === null || (d.status === 'pending' && d.attempts === 0)) return 'Test queued: sending…';
  if (d.status === 'delivered') return `Test delivered${d.last_status !== null ? ` (HTTP ${d.last_status})` : ''}.`;
  if (d.status === 'failed') return `Test not delivered: ${answered(d)}. It is in the delivery log.`;
  return `Test not delivered yet: ${answered(d)}. It is retried${d.next_attempt_at ? ` at ${d.next_attempt_at.slice(11, 19)} UTC` : ''}.`;
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The upload's answer: "Read 3 account rows and 1 territory rule." */
export function ownersReportText(r: { owners: number; territories: number }): string {
  return `Read ${count(r.owners, 'account row', 'account rows')} and ${count(r.territories, 'territory rule', 'territory rules')}; the list is replaced.`;
}

/** What is uploaded now. */
export function ownersSummary(v: { owners: readonly unknown[]; territories: readonly unknown[]; updated_at: string | null }): string {
  if (v.updated_at === null && v.owners.length === 0 && v.territories.length === 0) return 'No owners list uploaded yet.';
  return `${count(v.owners.length, 'account', 'accounts')} with an owner and ${count(v.territories.length, 'territory rule', 'territory rules')}${v.updated_at ? `, uploaded ${v.updated_at.slice(0, 10)}` : ''}.`;
}
