/**
 * A digest as mail (pure): the subject, an HTML part and a plain-text part saying the same. The HTML is one
 * column with inline styles (mail clients drop style sheets), no wider than 600 px and as narrow as a phone
 * (long names and paths wrap instead of widening the page); every account links to its account page.
 * Everything that comes from data (company names, domains, paths) is escaped.
 */
import type { DigestAccount, DigestContent, Listed, StageMove } from './content.ts';

export interface DigestLinks {
  /** The one-click unsubscribe page (no sign-in). */
  unsubscribe: string;
  /** Where the user changes the digest's settings (the console). */
  settings: string;
}

export interface RenderedDigest {
  subject: string;
  html: string;
  text: string;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text as HTML text or attribute value. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
/** Text of the plain part: one line, no control characters a name could smuggle in. */
const line = (s: string) => s.replace(/\p{Cc}+/gu, ' ');

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function periodLabel(c: DigestContent): string {
  const p = c.period;
  return p.kind === 'day' ? p.first : `${p.first} – ${p.last}`;
}

export function digestSubject(c: DigestContent): string {
  const kind = c.period.kind === 'day' ? 'Daily' : 'Weekly';
  const parts = [plural(c.visiting, 'visiting account')];
  if (c.new_accounts.total > 0) parts.push(`${c.new_accounts.total} new`);
  if (c.hot_accounts.total > 0) parts.push(`${c.hot_accounts.total} hot`);
  return line(`${kind} digest for ${c.customer.name} (${periodLabel(c)}): ${parts.join(', ')}`);
}

const S = {
  body: 'margin:0;padding:0;background:#f4f5f7;',
  wrap: 'width:100%;max-width:600px;margin:0 auto;padding:16px;box-sizing:border-box;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1f2328;font-size:15px;line-height:1.45;',
  card: 'background:#ffffff;border-radius:8px;padding:16px;margin:0 0 12px 0;',
  h1: 'font-size:20px;margin:0 0 4px 0;',
  h2: 'font-size:16px;margin:0 0 8px 0;',
  muted: 'color:#59636e;font-size:13px;margin:0;',
  ul: 'list-style:none;margin:0;padding:0;',
  li: 'padding:6px 0;border-top:1px solid #eef0f2;overflow-wrap:anywhere;word-break:break-word;',
  a: 'color:#0b57d0;text-decoration:none;font-weight:600;',
  foot: 'color:#59636e;font-size:12px;text-align:center;margin:12px 0 0 0;overflow-wrap:anywhere;',
} as const;

const accountLink = (a: DigestAccount) => `<a href="${escapeHtml(a.url)}" style="${S.a}">${escapeHtml(a.name)}</a>`;

function accountDetail(a: DigestAccount): string {
  const bits = [a.domain, plural(a.page_views, 'page view'), a.top_page ? `top page ${a.top_page}` : null].filter((b): b is string => b !== null);
  return bits.join(' · ');
}

function section<T>(title: string, listed: Listed<T>, item: (t: T) => string): string {
  if (listed.total === 0) return '';
  const more = listed.total > listed.items.length ? `<p style="${S.muted}">and ${listed.total - listed.items.length} more</p>` : '';
  const items = listed.items.map((t) => `<li style="${S.li}">${item(t)}</li>`).join('');
  return `<div style="${S.card}"><h2 style="${S.h2}">${escapeHtml(title)} (${listed.total})</h2><ul style="${S.ul}">${items}</ul>${more}</div>`;
}

const accountItem = (a: DigestAccount) => `${accountLink(a)}<br><span style="${S.muted}">${escapeHtml(accountDetail(a))}</span>`;
const moveItem = (m: StageMove) => `${accountLink(m.account)}<br><span style="${S.muted}">${escapeHtml(`${m.product}: ${m.from} → ${m.to}`)}</span>`;

export function renderDigest(c: DigestContent, links: DigestLinks): RenderedDigest {
  const subject = digestSubject(c);
  const pages =
    c.top_pages.length === 0
      ? ''
      : `<div style="${S.card}"><h2 style="${S.h2}">Top pages</h2><ul style="${S.ul}">${c.top_pages
          .map(
            (p) =>
              `<li style="${S.li}"><code style="overflow-wrap:anywhere;word-break:break-all;">${escapeHtml(p.path)}</code><br><span style="${S.muted}">${escapeHtml(`${plural(p.page_views, 'view')} by ${plural(p.accounts, 'account')}`)}</span></li>`,
          )
          .join('')}</ul></div>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(subject)}</title></head>
<body style="${S.body}"><div style="${S.wrap}">
<div style="${S.card}"><h1 style="${S.h1}">${escapeHtml(c.customer.name)}: ${c.period.kind === 'day' ? 'your daily digest' : 'your weekly digest'}</h1>
<p style="${S.muted}">${escapeHtml(periodLabel(c))} · ${escapeHtml(plural(c.visiting, 'visiting account'))}</p></div>
${section('New accounts', c.new_accounts, accountItem)}
${section('Hot accounts', c.hot_accounts, accountItem)}
${section('Buying stage moves', c.stage_moves, moveItem)}
${section('Most active accounts', c.most_active, accountItem)}
${pages}
<p style="${S.foot}">You get this mail because of your digest settings. <a href="${escapeHtml(links.settings)}" style="color:#59636e;">Change them</a> or <a href="${escapeHtml(links.unsubscribe)}" style="color:#59636e;">unsubscribe</a>.</p>
</div></body></html>
`;
  return { subject, html, text: renderText(c, subject, links) };
}

function textSection<T>(title: string, listed: Listed<T>, item: (t: T) => string[]): string[] {
  if (listed.total === 0) return [];
  const more = listed.total > listed.items.length ? [`  … and ${listed.total - listed.items.length} more`] : [];
  return [`${title} (${listed.total})`, ...listed.items.flatMap((t) => item(t).map((l, i) => (i === 0 ? `- ${line(l)}` : `  ${line(l)}`))), ...more, ''];
}

const accountLines = (a: DigestAccount) => [a.name, accountDetail(a), a.url];

function renderText(c: DigestContent, subject: string, links: DigestLinks): string {
  return [
    subject,
    '',
    ...textSection('New accounts', c.new_accounts, accountLines),
    ...textSection('Hot accounts', c.hot_accounts, accountLines),
    ...textSection('Buying stage moves', c.stage_moves, (m) => [`${m.account.name}: ${m.product} ${m.from} → ${m.to}`, m.account.url]),
    ...textSection('Most active accounts', c.most_active, accountLines),
    ...(c.top_pages.length > 0
      ? ['Top pages', ...c.top_pages.map((p) => `- ${line(p.path)}: ${plural(p.page_views, 'view')} by ${plural(p.accounts, 'account')}`), '']
      : []),
    `Change your digest settings: ${links.settings}`,
    `Unsubscribe: ${links.unsubscribe}`,
    '',
  ].join('\n');
}
