/**
 * What an alert's deliveries say, per destination: pure, built from the stored bodies (an event with its
 * AlertRoute, events.ts plannedAlertEvents), so the dispatcher only sends what this returns.
 *
 * - Slack: the account message or digest of ./slack.ts, with the alert's words for what happened, its name,
 *   a TEST label for a "send test", and the owner's @mention (a Slack member id, checked as one on upload).
 * - Teams: ./teams.ts.
 * - Mail: a subject, a plain-text and an HTML part (every value HTML-escaped), `[TEST]` in the subject of a test.
 */
import type { ContextBlock } from '@slack/types';
import { type AlertRoute, AlertRoute as AlertRouteSchema, SlackMemberId } from '../../core/alert-records.ts';
import type { WebhookEvent } from './payloads.ts';
import { accountLink, accountMessage, digestMessage, mrkdwnEscape, type SlackAccount, type SlackContext, type SlackMessage, slackAccounts } from './slack.ts';
import { type TeamsMessage, teamsMessage } from './teams.ts';

/** A stored body read back: the event and, for an alert's delivery, its route. */
export interface AlertBody {
  event: WebhookEvent;
  route: AlertRoute | null;
}

/**
 * False when the body cannot be an alert's (no `"alert"` anywhere in it, so no such key): a JSON delivery is
 * then sent without parsing its body, twice, to look for a route.
 */
export const mayBeAlert = (body: string): boolean => body.includes('"alert"');

export function readBody(body: string): AlertBody | null {
  try {
    const parsed = JSON.parse(body) as WebhookEvent & { alert?: unknown };
    const route = parsed.alert === undefined ? null : AlertRouteSchema.safeParse(parsed.alert);
    return { event: parsed, route: route?.success ? route.data : null };
  } catch {
    return null;
  }
}

/** The accounts of the bodies, each with what its alert says happened (rather than the event's type). */
export function alertAccounts(bodies: readonly AlertBody[]): SlackAccount[] {
  const accounts = slackAccounts(bodies.map((b) => b.event));
  for (const a of accounts) {
    const routes = bodies.filter((b) => b.route && 'account' in b.event.data && b.event.data.account.company_id === a.company_id).map((b) => b.route!);
    if (routes.length) a.happened = [...new Set(routes.map((r) => r.happened))];
    // segment.entered bodies name only the segment entered: the route has all of the account's.
    const segments = routes.find((r) => r.segments.length > 0)?.segments;
    if (segments) a.segments = segments;
  }
  return accounts;
}

/** The route a message's head shows: a test's if any, else the first (a digest's deliveries are of one alert). */
const headRoute = (bodies: readonly AlertBody[]) => bodies.find((b) => b.route?.test)?.route ?? bodies.find((b) => b.route)?.route;

/** The Slack message of an alert's channel deliveries (one account, or a digest), or null when none is about an account. */
export function alertSlackMessage(bodies: readonly AlertBody[], ctx: SlackContext): SlackMessage | null {
  const accounts = alertAccounts(bodies);
  if (accounts.length === 0) return null;
  const message = accounts.length === 1 ? accountMessage(accounts[0]!, ctx) : digestMessage(accounts, ctx);
  const route = headRoute(bodies);
  if (!route) return message;
  const parts = [`${route.test ? '*TEST ALERT* (not about a real visit) · ' : ''}Alert: ${mrkdwnEscape(route.name)}`];
  // Only an id that is one becomes a mention: anything else could be `!channel`.
  const mentions = [...new Set(bodies.map((b) => b.route?.mention?.slack).filter((m): m is string => !!m && SlackMemberId.safeParse(m).success))];
  if (accounts.length === 1 && mentions.length) parts.push(`Owner: ${mentions.map((m) => `<@${m}>`).join(' ')}`);
  const head: ContextBlock = { type: 'context', elements: [{ type: 'mrkdwn', text: parts.join(' · ') }] };
  return { ...message, text: `${route.test ? '[TEST] ' : ''}${message.text}`, blocks: [head, ...message.blocks] };
}

export function alertTeamsMessage(bodies: readonly AlertBody[], ctx: SlackContext): TeamsMessage | null {
  const accounts = alertAccounts(bodies);
  if (accounts.length === 0) return null;
  const route = headRoute(bodies);
  // A digest mentions nobody: its accounts have different owners.
  const mention = accounts.length === 1 ? bodies.find((b) => b.route?.mention?.teams)?.route?.mention : null;
  return teamsMessage(accounts, route ? { ...route, mention: mention ?? null } : undefined, ctx);
}

export interface AlertMail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
/** Header fields take one line: a name with a line break would start another header. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').slice(0, 200);

/** The mail of one alert delivery (one account). */
export function alertMail(body: AlertBody, ctx: SlackContext): AlertMail | null {
  const [a] = alertAccounts([body]);
  if (!a) return null;
  const route = body.route;
  const test = route?.test === true;
  const headline = `${a.name} ${a.happened.join(' · ')}`;
  const link = accountLink(ctx, a);
  const facts: [string, string | null][] = [
    ['Domain', a.domain],
    ['Industry', a.industry],
    ['Size', a.size && `${a.size} employees`],
    ['Country', a.country],
    ['Segments', a.segments.length ? a.segments.join(', ') : null],
  ];
  const why =
    route?.via === 'mail' && route.fallback
      ? 'You get this as the fallback of an alert routed to the account’s owner.'
      : route?.via === 'mail'
        ? 'You get this as the owner of the account.'
        : 'You get this as a recipient of the alert.';
  const text = [
    ...(test ? ['TEST ALERT: this is a test of the alert, not about a real visit.', ''] : []),
    headline,
    '',
    ...facts.map(([k, v]) => `${k}: ${v ?? '—'}`),
    '',
    'Pages this visit:',
    ...(a.pages.length ? a.pages.map((p) => `  ${p}`) : ['  —']),
    '',
    `Open the account: ${link}`,
    '',
    `${route ? `Alert "${route.name}". ` : ''}${why}`,
  ].join('\n');
  const rows = facts.map(([k, v]) => `<tr><th align="left">${html(k)}</th><td>${html(v ?? '—')}</td></tr>`).join('');
  const htmlBody = `<!doctype html><html><body style="font-family:sans-serif">${
    test ? '<p style="color:#b00;font-weight:bold">TEST ALERT: this is a test of the alert, not about a real visit.</p>' : ''
  }<h2>${html(headline)}</h2><table>${rows}</table><h3>Pages this visit</h3><ul>${a.pages.map((p) => `<li><code>${html(p)}</code></li>`).join('') || '<li>—</li>'}</ul><p><a href="${html(link)}">Open the account</a></p><p style="color:#666">${html(
    `${route ? `Alert "${route.name}". ` : ''}${why}`,
  )}</p></body></html>`;
  return {
    subject: oneLine(`${test ? '[TEST] ' : ''}${headline}`),
    text,
    html: htmlBody,
    headers: test ? { 'X-Svc-Test-Alert': 'true' } : {},
  };
}
