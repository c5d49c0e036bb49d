/**
 * Slack messages (Block Kit, typed against @slack/types) built from the events the outbox holds: pure, so
 * the blocks are pinned by unit tests and the dispatcher only sends what this returns.
 *
 * - The events of ONE account (one visit usually raises account.visited and maybe account.hot, claimed
 *   together): one message — the company (display name, domain, industry, size, country), its segments,
 *   the visit's pages and a link to the account page in the console.
 * - Events of SEVERAL accounts (due together: a burst of visits, a backlog after Slack said to slow down):
 *   one digest — "7 accounts visited" and a line per account, at most DIGEST_LINES of them.
 *
 * Everything a visitor or a catalog controls (names, paths) is escaped in mrkdwn (the fallback `text`
 * included): `&`, `<`, `>` would otherwise make links or mentions (`<!channel>`). Header text is
 * plain_text, which Slack shows as written.
 */
import type { ContextBlock, HeaderBlock, KnownBlock, SectionBlock } from '@slack/types';
import { hashForAccount, hashForCustomer } from '../../core/console-links.ts';
import type { AccountEventV1, AccountEventV2, SegmentEnteredV1, WebhookEvent } from './payloads.ts';

/** What a Slack incoming webhook takes: `text` is the notification and the fallback; `blocks` the message. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
  /** A console link in the message is not unfurled (it is behind a sign-in anyway). */
  unfurl_links: false;
  unfurl_media: false;
}

export interface SlackContext {
  /** The server's public address (SVC_PUBLIC_URL): account links point at `<base>/console/#…`. */
  publicBaseUrl: string;
}

/** Accounts listed in a digest; the others are counted ("and 12 more"). Slack allows 50 blocks a message. */
export const DIGEST_LINES = 15;
/** Pages of the visit a message lists (the newest); a visit keeps up to 50. */
export const MESSAGE_PAGES = 10;
/** Slack's limits: header text 150 characters, a section's text 3,000, a field 2,000. */
const HEADER_MAX = 150;
const TEXT_MAX = 3000;

type AccountEvent = AccountEventV1 | AccountEventV2 | SegmentEnteredV1;
const TYPE_ORDER: Record<AccountEvent['type'], number> = { 'account.visited': 0, 'account.hot': 1, 'segment.entered': 2 };

/** Escapes what mrkdwn reads as markup (links, mentions). */
export function mrkdwnEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const isAccountEvent = (e: WebhookEvent): e is AccountEvent => e.type !== 'tag.installed';

/** One account as the events about it tell it (the richest body wins: v2 and segment.entered carry the company). */
export interface SlackAccount {
  customer_id: string;
  company_id: string;
  name: string;
  domain: string | null;
  industry: string | null;
  size: string | null;
  country: string | null;
  segments: string[];
  /** The visit's paths in order (this view last), at most MESSAGE_PAGES of the newest. */
  pages: string[];
  session_count: number | null;
  hot: boolean;
  /** What happened, in order: "visited", "is hot", "entered Enterprise". */
  happened: string[];
  at: string;
}

/** Groups the events by account (in order of first appearance) and reads each account's facts. */
export function slackAccounts(events: readonly WebhookEvent[]): SlackAccount[] {
  const byAccount = new Map<string, AccountEvent[]>();
  // Deliveries due at the same instant come from the outbox in no set order: the message is the same whatever it was.
  const ordered = events.filter(isAccountEvent).sort((a, b) => a.created_at.localeCompare(b.created_at) || TYPE_ORDER[a.type] - TYPE_ORDER[b.type]);
  for (const e of ordered) {
    const id = e.data.account.company_id;
    byAccount.set(id, [...(byAccount.get(id) ?? []), e]);
  }
  return [...byAccount.values()].map(accountOf);
}

function accountOf(events: AccountEvent[]): SlackAccount {
  const first = events[0]!;
  const company = events.map((e) => ('company' in e.data ? e.data.company : null)).find((c) => c !== null) ?? null;
  const v1 = events.find((e): e is AccountEventV1 => 'name' in e.data.account)?.data.account;
  const v2 = [...events].reverse().find((e): e is AccountEventV2 => 'visit' in e.data);
  const segmentNames = (): string[] => {
    const withSegments = v2 ?? events.find((e): e is AccountEventV2 => 'segments' in e.data);
    if (withSegments) {
      const { ids, names } = withSegments.data.segments;
      return names.length > 0 ? names : ids.map((id) => `#${id}`);
    }
    return v1 ? v1.segment_ids.map((id) => `#${id}`) : [];
  };
  const domain = company?.domain ?? v1?.domain ?? null;
  const name = company?.display_name ?? company?.name ?? v1?.name ?? domain ?? `Company ${first.data.account.company_id}`;
  const paths = v2 ? v2.data.visit.pages.map((p) => p.path) : [...new Set(events.map((e) => e.data.page.path))];
  const happened = events.map((e) =>
    'segment' in e.data ? `entered ${e.data.segment.name ?? `segment #${e.data.segment.id}`}` : e.type === 'account.visited' ? 'visited' : 'is hot',
  );
  return {
    customer_id: first.customer_id,
    company_id: first.data.account.company_id,
    name,
    domain,
    industry: company?.industry ?? null,
    size: company?.employee_range ?? null,
    country: company?.country ?? null,
    segments: segmentNames(),
    pages: paths.slice(-MESSAGE_PAGES),
    session_count: v2?.data.visit.session_count ?? null,
    hot: events.some((e) => e.type === 'account.hot' || e.data.account.hot_account),
    happened: [...new Set(happened)],
    at: events[events.length - 1]!.created_at,
  };
}

/** The account page in the console (core/console-links.ts routes `#customer=…&page=accounts&account=…`). */
export function accountLink(ctx: SlackContext, account: Pick<SlackAccount, 'customer_id' | 'company_id'>): string {
  return consoleUrl(ctx, hashForAccount(account.customer_id, account.company_id));
}

const consoleUrl = (ctx: SlackContext, hash: string) => `${ctx.publicBaseUrl.replace(/\/+$/, '')}/console/${hash}`;

const link = (url: string, text: string) => `<${mrkdwnEscape(url)}|${mrkdwnEscape(text).replace(/\|/g, '¦')}>`;
/** A path as inline code: a backtick in it would end the code span. */
const codePath = (path: string) => `\`${mrkdwnEscape(path.replace(/`/g, "'"))}\``;
const plain = (text: string): HeaderBlock['text'] => ({ type: 'plain_text', text: clip(text, HEADER_MAX), emoji: true });

/** The message for a batch of events: one account's message, or a digest of several. Null when no event is about an account. */
export function slackMessage(events: readonly WebhookEvent[], ctx: SlackContext): SlackMessage | null {
  const accounts = slackAccounts(events);
  if (accounts.length === 0) return null;
  return accounts.length === 1 ? accountMessage(accounts[0]!, ctx) : digestMessage(accounts, ctx);
}

const firmographicLine = (a: SlackAccount) => [a.domain, a.industry, a.size && `${a.size} employees`, a.country].filter(Boolean).join(' · ');

export function accountMessage(a: SlackAccount, ctx: SlackContext): SlackMessage {
  const headline = `${a.hot ? '🔥 ' : ''}${a.name} ${a.happened.join(' · ')}`;
  const field = (label: string, value: string | null) => ({ type: 'mrkdwn' as const, text: clip(`*${label}*\n${value ? mrkdwnEscape(value) : '—'}`, 2000) });
  const facts: SectionBlock = {
    type: 'section',
    fields: [
      field('Domain', a.domain),
      field('Industry', a.industry),
      field('Size', a.size && `${a.size} employees`),
      field('Country', a.country),
      field('Segments', a.segments.length ? a.segments.join(', ') : null),
      field('Sessions', a.session_count === null ? null : String(a.session_count)),
    ],
  };
  const pages: SectionBlock = {
    type: 'section',
    text: { type: 'mrkdwn', text: clip(`*Pages this visit*\n${a.pages.map((p) => `• ${codePath(p)}`).join('\n') || '—'}`, TEXT_MAX) },
  };
  const footer: ContextBlock = {
    type: 'context',
    elements: [
      { type: 'mrkdwn', text: `${link(accountLink(ctx, a), 'Open the account in the console')} · ${mrkdwnEscape(a.at.slice(0, 16).replace('T', ' '))} UTC` },
    ],
  };
  return {
    // The fallback text is mrkdwn too (the notification): escaped as the blocks are.
    text: clip(mrkdwnEscape(`${headline}${a.domain ? ` (${a.domain})` : ''}${a.pages.length ? `: ${a.pages.join(', ')}` : ''}`), TEXT_MAX),
    blocks: [{ type: 'header', text: plain(headline) }, facts, pages, footer],
    unfurl_links: false,
    unfurl_media: false,
  };
}

export function digestMessage(accounts: readonly SlackAccount[], ctx: SlackContext): SlackMessage {
  const headline = `${accounts.length} accounts visited`;
  const shown = accounts.slice(0, DIGEST_LINES);
  const lines: SectionBlock[] = shown.map((a) => {
    const about = firmographicLine(a);
    const segments = a.segments.length ? ` · ${a.segments.join(', ')}` : '';
    const pages = a.pages.length ? `\n${a.pages.map(codePath).join(' → ')}` : '';
    return {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clip(
          `${a.hot ? '🔥 ' : ''}*${link(accountLink(ctx, a), a.name)}* ${mrkdwnEscape(a.happened.join(' · '))}\n${mrkdwnEscape(about + segments)}${pages}`,
          TEXT_MAX,
        ),
      },
    };
  });
  const more = accounts.length - shown.length;
  const footer: ContextBlock = {
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `${more > 0 ? `…and ${more} more: see ` : 'All of them in '}${link(consoleUrl(ctx, hashForCustomer(accounts[0]!.customer_id, 'visitors')), 'the console’s Visitors page')}`,
      },
    ],
  };
  return {
    text: clip(mrkdwnEscape(`${headline}: ${accounts.map((a) => a.name).join(', ')}`), TEXT_MAX),
    blocks: [{ type: 'header', text: plain(headline) }, ...lines, { type: 'divider' }, footer],
    unfurl_links: false,
    unfurl_media: false,
  };
}

/**
 * A Slack incoming-webhook URL as the API and the audit log show it: the URL is itself the credential
 * (whoever holds it posts to the channel, no signature involved), so its last path segment — the secret
 * part of `https://hooks.slack.com/services/T…/B…/<secret>` — keeps only its last 4 characters, and any
 * query is dropped. The workspace and channel ids stay: they tell two endpoints apart.
 */
export function maskedSlackUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '…';
  }
  const parts = u.pathname.split('/');
  const last = parts.at(-1) ?? '';
  parts[parts.length - 1] = last.length > 8 ? `…${last.slice(-4)}` : '…';
  return `${u.origin}${parts.join('/')}`;
}
