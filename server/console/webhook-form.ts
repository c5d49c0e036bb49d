/**
 * The console's webhook form as plain data: the text the user typed → the admin API's request body, or
 * the field to point at. Checks only what a person can fix before sending (the server's zod schema
 * decides; zod itself stays out of the console bundle, whose size budget the build test pins).
 *
 * Two formats: a JSON webhook (signed event bodies; the payload version per event, segment names and
 * scores are its settings) or a Slack incoming webhook (Block Kit messages on the newest payloads; the
 * filters say which accounts raise a message).
 */
import type { NewWebhook, WebhookEventType, WebhookRecord } from '../webhooks/schema.ts';

export type WebhookFormat = 'json' | 'slack';

export interface WebhookFormFields {
  format: WebhookFormat;
  url: string;
  visited: boolean;
  hot: boolean;
  entered: boolean;
  /** Comma- or newline-separated path patterns. */
  hot_paths: string;
  /** A JSON endpoint's payload version per event, as the select holds it ('' or absent: the newest). */
  versions: Partial<Record<WebhookEventType, string>>;
  segment_names: boolean;
  scores: boolean;
  /** Filters (Slack): segment ids of which the account is in any; hot accounts only; page views this visit ('' none). */
  filter_segments: number[];
  hot_only: boolean;
  min_page_views: string;
}

export const emptyWebhookForm = (): WebhookFormFields => ({
  format: 'json',
  url: '',
  visited: true,
  hot: true,
  entered: false,
  hot_paths: '/pricing*',
  versions: {},
  segment_names: false,
  scores: false,
  filter_segments: [],
  hot_only: false,
  min_page_views: '',
});

export type WebhookFormResult = { ok: true; body: NewWebhook } | { ok: false; field: keyof WebhookFormFields; message: string };

/** The events the form's checkboxes subscribe to, in the API's order. */
export function formEvents(form: Pick<WebhookFormFields, 'visited' | 'hot' | 'entered'>): WebhookEventType[] {
  const events: WebhookEventType[] = [];
  if (form.visited) events.push('account.visited');
  if (form.hot) events.push('account.hot');
  if (form.entered) events.push('segment.entered');
  return events;
}

export function webhookRequestBody(form: WebhookFormFields): WebhookFormResult {
  const url = form.url.trim();
  const slack = form.format === 'slack';
  if (!isHttpUrl(url))
    return {
      ok: false,
      field: 'url',
      message: slack
        ? 'Enter the Slack incoming-webhook URL, e.g. https://hooks.slack.com/services/T000/B000/XXXX.'
        : 'Enter the receiver’s full http(s) URL, e.g. https://hooks.example.com/svc.',
    };
  const events = formEvents(form);
  if (!events.length) return { ok: false, field: 'visited', message: 'Choose at least one event.' };
  const hot_paths = form.hot_paths
    .split(/[\n,]/)
    .map((p) => p.trim())
    .filter(Boolean);
  const bad = hot_paths.find((p) => !/^\/[^\s?#]*$/.test(p));
  if (bad !== undefined)
    return { ok: false, field: 'hot_paths', message: `“${bad}” is not a path pattern: start with / (e.g. /pricing*), no spaces or query.` };
  if (!slack) {
    const event_versions = Object.fromEntries(events.filter((e) => form.versions[e]).map((e) => [e, Number(form.versions[e])]));
    const body: NewWebhook = { url, events, hot_paths };
    if (Object.keys(event_versions).length) body.event_versions = event_versions;
    if (form.segment_names) body.segment_names = true;
    if (form.scores) body.scores = true;
    return { ok: true, body };
  }
  const min = form.min_page_views.trim();
  if (min !== '' && !(/^\d+$/.test(min) && Number(min) >= 1 && Number(min) <= 50))
    return { ok: false, field: 'min_page_views', message: 'Minimum page views: a whole number from 1 to 50, or empty for any.' };
  const filters: NonNullable<NewWebhook['filters']> = {};
  if (form.filter_segments.length) filters.segments = form.filter_segments;
  if (form.hot_only) filters.hot_only = true;
  if (min !== '') filters.min_page_views = Number(min);
  return { ok: true, body: { url, events, hot_paths, format: 'slack', ...(Object.keys(filters).length ? { filters } : {}) } };
}

/** What an endpoint's card says about its format, versions and filters (segment names from the customer's list). */
export function endpointSummary(w: Pick<WebhookRecord, 'format' | 'events' | 'event_versions' | 'filters'>, segmentName: (id: number) => string): string {
  const versions = w.events.map((e) => `${e} v${w.event_versions[e] ?? 1}`).join(', ');
  const f = w.filters ?? {};
  const filters = [
    f.segments?.length ? `in ${f.segments.map(segmentName).join(' or ')}` : null,
    f.hot_only ? 'hot accounts only' : null,
    f.min_page_views ? `≥ ${f.min_page_views} page views this visit` : null,
  ].filter(Boolean);
  return `${w.format === 'slack' ? 'Slack' : 'JSON webhook'} · ${versions}${filters.length ? ` · filters: ${filters.join(', ')}` : ''}`;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
