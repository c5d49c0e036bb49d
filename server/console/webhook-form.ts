/**
 * The console's webhook form as plain data: the text the user typed → the admin API's request body, or
 * the field to point at. Checks only what a person can fix before sending (the server's zod schema
 * decides; zod itself stays out of the console bundle, whose size budget the build test pins).
 */
import type { NewWebhook, WebhookEventType } from '../webhooks/schema.ts';

export interface WebhookFormFields {
  url: string;
  visited: boolean;
  hot: boolean;
  /** Comma- or newline-separated path patterns. */
  hot_paths: string;
}

export const emptyWebhookForm = (): WebhookFormFields => ({ url: '', visited: true, hot: true, hot_paths: '/pricing*' });

export type WebhookFormResult = { ok: true; body: NewWebhook } | { ok: false; field: keyof WebhookFormFields; message: string };

export function webhookRequestBody(form: WebhookFormFields): WebhookFormResult {
  const url = form.url.trim();
  if (!isHttpUrl(url)) return { ok: false, field: 'url', message: 'Enter the receiver’s full http(s) URL, e.g. https://hooks.example.com/svc.' };
  const events: WebhookEventType[] = [];
  if (form.visited) events.push('account.visited');
  if (form.hot) events.push('account.hot');
  if (!events.length) return { ok: false, field: 'visited', message: 'Choose at least one event.' };
  const hot_paths = form.hot_paths
    .split(/[\n,]/)
    .map((p) => p.trim())
    .filter(Boolean);
  const bad = hot_paths.find((p) => !/^\/[^\s?#]*$/.test(p));
  if (bad !== undefined)
    return { ok: false, field: 'hot_paths', message: `“${bad}” is not a path pattern: start with / (e.g. /pricing*), no spaces or query.` };
  return { ok: true, body: { url, events, hot_paths } };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
