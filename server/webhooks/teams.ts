/**
 * Microsoft Teams messages for alerts: an Adaptive Card (schema 1.4, what Teams Workflows post into a
 * channel) in the message envelope a Workflows "post to a channel when a webhook request is received" flow
 * takes. Pure, so the card is pinned by tests against the Adaptive Card object model (the `adaptivecards`
 * package parses and re-serializes it: what it does not know is an error).
 *
 * - One account: its card — what happened (the alert's words), company, domain, industry, size, country,
 *   segments, the visit's pages, and a button to the account page in the console.
 * - Several accounts due at once (a burst beyond Teams' pace): one digest card, a line per account (at
 *   most DIGEST_LINES) and the rest counted.
 *
 * Everything a visitor, a catalog or a customer controls is escaped (teamsEscape): TextBlock and FactSet
 * text is Markdown in Teams, and `<at>…</at>` is a mention; a company named `<at>General</at>` or
 * `[click](https://evil)` shows as written. The only mention is the owner's, built here from the owners
 * list's Teams mention (an id, never text of the card).
 */
import type { AlertRoute } from '../../core/alert-records.ts';
import { accountLink, DIGEST_LINES, type SlackAccount, type SlackContext } from './slack.ts';

/** The Adaptive Card version sent: Teams renders 1.4 in channels and chats (1.5 only in some clients). */
export const CARD_VERSION = '1.4';
/** What a Teams Workflows webhook takes: a message with the card as its attachment. */
export interface TeamsMessage {
  type: 'message';
  attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive'; contentUrl: null; content: AdaptiveCard }];
}
export interface AdaptiveCard {
  type: 'AdaptiveCard';
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json';
  version: string;
  body: Record<string, unknown>[];
  actions?: Record<string, unknown>[];
  /** Teams' own extension (full width, mentions): outside the Adaptive Card schema, read by Teams only. */
  msteams?: { width: 'Full'; entities?: { type: 'mention'; text: string; mentioned: { id: string; name: string } }[] };
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * Text shown as written in a TextBlock or a fact. The Markdown Adaptive Cards read (emphasis `*` `_`, links
 * `[…](…)`, code, a list marker at the start) is escaped with a backslash; `<` `>` become look-alikes (‹ ›):
 * Teams reads `<at>` as a mention and some clients tags as HTML. Line breaks become spaces (no new list).
 */
export function teamsEscape(text: string): string {
  return text
    .replace(/\r?\n/g, ' ')
    .replace(/[\\`*_[\]()~]/g, (c) => `\\${c}`)
    .replace(/</g, '‹')
    .replace(/>/g, '›')
    .replace(/^(\s*)([-+#]|\d+\.)/, (_m, space: string, marker: string) => `${space}\\${marker}`);
}

const textBlock = (text: string, extra: Record<string, unknown> = {}) => ({ type: 'TextBlock', text, wrap: true, ...extra });

/** The card's head: a test label, the alert's name, the owner's mention. */
function heading(route: AlertRoute | undefined): { blocks: Record<string, unknown>[]; entities: NonNullable<AdaptiveCard['msteams']>['entities'] } {
  const blocks: Record<string, unknown>[] = [];
  if (route?.test) blocks.push(textBlock('TEST ALERT: not about a real visit', { color: 'Attention', weight: 'Bolder' }));
  if (route) blocks.push(textBlock(`Alert: ${teamsEscape(route.name)}`, { isSubtle: true, spacing: 'None' }));
  const teams = route?.mention?.teams;
  if (!teams) return { blocks, entities: [] };
  // The mention's text is ours, its name the owner's email (escaped: it is the customer's data).
  const name = teamsEscape(teams.name);
  const text = `<at>${name}</at>`;
  blocks.push(textBlock(`Owner: ${text}`));
  return { blocks, entities: [{ type: 'mention', text, mentioned: { id: teams.id, name } }] };
}

function envelope(card: AdaptiveCard): TeamsMessage {
  return { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] };
}

function card(body: Record<string, unknown>[], actions: Record<string, unknown>[], entities: NonNullable<AdaptiveCard['msteams']>['entities']): AdaptiveCard {
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: CARD_VERSION,
    body,
    ...(actions.length ? { actions } : {}),
    msteams: { width: 'Full', ...(entities?.length ? { entities } : {}) },
  };
}

/** The message for one account (`happened` from the alert) or a digest of several. */
export function teamsMessage(accounts: readonly SlackAccount[], route: AlertRoute | undefined, ctx: SlackContext): TeamsMessage {
  const head = heading(route);
  if (accounts.length === 1) {
    const a = accounts[0]!;
    const fact = (title: string, value: string | null) => ({ title, value: value ? teamsEscape(clip(value, 500)) : '—' });
    const body = [
      ...head.blocks,
      textBlock(teamsEscape(clip(`${a.hot ? '🔥 ' : ''}${a.name} ${a.happened.join(' · ')}`, 300)), { size: 'Medium', weight: 'Bolder' }),
      {
        type: 'FactSet',
        facts: [
          fact('Company', a.name),
          fact('Domain', a.domain),
          fact('Industry', a.industry),
          fact('Size', a.size && `${a.size} employees`),
          fact('Country', a.country),
          fact('Segments', a.segments.length ? a.segments.join(', ') : null),
        ],
      },
      textBlock('Pages this visit', { weight: 'Bolder', spacing: 'Medium' }),
      textBlock(a.pages.length ? a.pages.map((p) => teamsEscape(clip(p, 200))).join('  \n') : '—', { fontType: 'Monospace', spacing: 'None' }),
      textBlock(`${a.at.slice(0, 16).replace('T', ' ')} UTC`, { isSubtle: true, size: 'Small' }),
    ];
    return envelope(card(body, [{ type: 'Action.OpenUrl', title: 'Open the account', url: accountLink(ctx, a) }], head.entities));
  }
  const shown = accounts.slice(0, DIGEST_LINES);
  const more = accounts.length - shown.length;
  const body = [
    ...head.blocks,
    textBlock(`${accounts.length} accounts`, { size: 'Medium', weight: 'Bolder' }),
    ...shown.map((a) =>
      textBlock(
        teamsEscape(
          clip(
            `${a.hot ? '🔥 ' : ''}${a.name} ${a.happened.join(' · ')} — ${[a.domain, a.industry, a.size && `${a.size} employees`].filter(Boolean).join(' · ')}`,
            400,
          ),
        ),
        { separator: true },
      ),
    ),
    ...(more > 0 ? [textBlock(`…and ${more} more`, { isSubtle: true })] : []),
  ];
  return envelope(card(body, [], head.entities));
}
