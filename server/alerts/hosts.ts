/**
 * Whose URL a Slack or Teams destination may be: an alert posts the account's company, segments and pages
 * to it, so a URL that is not the chat service's is refused (422 naming the hosts expected), not trusted.
 *
 * - Slack: incoming webhooks, `https://hooks.slack.com/…`.
 * - Teams: Workflows ("post to a channel when a webhook request is received") URLs, served by Power
 *   Automate: `https://<region>.logic.azure.com/workflows/…` and, since Microsoft's move of HTTP triggers to
 *   Power Platform, `https://<environment>.environment.api.powerplatform.com/…` (any `*.api.powerplatform.com`).
 *   Office 365 connector URLs (`*.webhook.office.com`, `outlook.office.com/webhook/…`) are refused with
 *   a message saying those connectors were retired.
 * - Other hosts (a local stand-in in tests, a relay of the customer's) only with SVC_WEBHOOK_ALLOW_PRIVATE,
 *   the server's opt-in for receivers outside the public internet (server/webhooks/destination.ts).
 *
 * Signed JSON webhooks (admins only) keep the webhook API's rule: any public address.
 */
import type { AlertDestinationType } from '../../core/alert-records.ts';

export const SLACK_HOSTS = ['hooks.slack.com'] as const;
export const TEAMS_HOST_SUFFIXES = ['.logic.azure.com', '.api.powerplatform.com'] as const;
const RETIRED_TEAMS = [/(^|\.)webhook\.office\.com$/i, /^outlook\.office(365)?\.com$/i];

export const SLACK_EXPECTED = 'a Slack incoming webhook URL: https://hooks.slack.com/services/…';
export const TEAMS_EXPECTED = 'a Teams Workflows URL: https://<…>.logic.azure.com/workflows/… or https://<…>.api.powerplatform.com/…';
export const TEAMS_RETIRED =
  'Office 365 connector URLs (*.webhook.office.com) were retired by Microsoft: create a Teams Workflow ("Post to a channel when a webhook request is received") and use its URL (https://<…>.logic.azure.com/… or https://<…>.api.powerplatform.com/…)';

/** Why the URL may not be the destination, or null when it may. `allowPrivate`: SVC_WEBHOOK_ALLOW_PRIVATE. */
export function chatUrlProblem(type: Extract<AlertDestinationType, 'slack' | 'teams'>, value: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `not a URL: expected ${type === 'slack' ? SLACK_EXPECTED : TEAMS_EXPECTED}`;
  }
  if (url.username || url.password) return 'a URL with credentials is not accepted';
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (type === 'teams' && RETIRED_TEAMS.some((r) => r.test(host))) return TEAMS_RETIRED;
  const theirs =
    url.protocol === 'https:' && (type === 'slack' ? (SLACK_HOSTS as readonly string[]).includes(host) : TEAMS_HOST_SUFFIXES.some((s) => host.endsWith(s)));
  if (theirs) return null;
  if (allowPrivate && (url.protocol === 'https:' || url.protocol === 'http:')) return null;
  return `not ${type === 'slack' ? 'Slack' : 'Teams'}'s: expected ${type === 'slack' ? SLACK_EXPECTED : TEAMS_EXPECTED} (other hosts only on a server started with SVC_WEBHOOK_ALLOW_PRIVATE=1)`;
}
