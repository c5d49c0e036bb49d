/**
 * Alert planning, pure (server/webhooks/events.ts plannedAlertEvents): each trigger fires when it should and
 * not otherwise, filters hold, owner routing (owner, fallback, mentions), keys per trigger, account and day;
 * the messages escape what visitors and catalogs control (Slack, Teams, mail); the destination host rules.
 */
import { describe, expect, it } from 'vitest';
import type { AlertTrigger, StoredAlert } from '../../core/alert-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import { firmographics } from '../identification/identify.ts';
import { adaptiveCardProblems } from '../testing/adaptive-card.ts';
import { alertMail, alertSlackMessage, alertTeamsMessage, readBody } from '../webhooks/alert-messages.ts';
import { type AlertEvent, type AlertFacts, type PageViewForWebhooks, plannedAlertEvents } from '../webhooks/events.ts';
import { chatUrlProblem, TEAMS_RETIRED } from './hosts.ts';
import { readOwnersCsv, territoryOf } from './owners.ts';

const company = (name = 'Northwind Analytics'): CompanyRow =>
  ({
    ...Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])),
    company_id: '900001',
    name,
    domain: 'northwind.example',
    industry: 'Software',
    country: 'United States',
    region: 'North America',
    employee_range: '1,000-4,999',
  }) as CompanyRow;

function view(over: Partial<PageViewForWebhooks> = {}, name?: string): PageViewForWebhooks {
  const c = company(name);
  return {
    customer_id: 'acme',
    tag_id: 'acme-tag',
    at: '2026-11-25T10:00:00.000Z',
    day: '2026-11-25',
    company_id: c.company_id,
    company: { name: c.name, domain: c.domain },
    path: '/pricing',
    referrer_host: null,
    session_id: 's1',
    origin: 'https://www.acme.test',
    first_of_day_for_account: true,
    segment_ids: [101],
    hot_account: false,
    excluded: false,
    enriched: {
      company: firmographics(c),
      segments: [{ id: 101, name: 'Enterprise Software' }],
      scores: [],
      entered_segment_ids: [],
      visit: { session_id: 's1', pages: [{ path: '/pricing', at: '2026-11-25T10:00:00.000Z' }], session_count: 1 },
    },
    ...over,
  };
}

const facts = (over: Partial<AlertFacts> = {}): AlertFacts => ({ reached: [], previous_visit_day: '2026-11-24', lists: [], owner: null, ...over });
const alert = (trigger: AlertTrigger, over: Partial<StoredAlert> = {}): StoredAlert => ({
  name: 'A',
  trigger,
  filter: {},
  destination_type: 'slack',
  to: [],
  route_to_owner: null,
  paused: false,
  created_by: null,
  ...over,
});
let n = 0;
const plan = (a: StoredAlert, v = view(), f = facts()) =>
  plannedAlertEvents(v, { id: 'wh_alert', events: [], hot_paths: [], format: 'slack', alert: a }, f, () => `evt_${n++}`);
const fires = (a: StoredAlert, v?: PageViewForWebhooks, f?: AlertFacts) => plan(a, v, f).length > 0;

describe('each trigger fires when it should, and not otherwise', () => {
  it('segment_entered: the view entered that segment', () => {
    const a = alert({ type: 'segment_entered', segment: 101 });
    const entered = view({ enriched: { ...view().enriched!, entered_segment_ids: [101] } });
    expect(fires(a, entered)).toBe(true);
    expect(fires(a, view())).toBe(false);
    expect(fires(alert({ type: 'segment_entered', segment: 102 }), entered)).toBe(false);
    expect((plan(a, entered)[0]!.event as AlertEvent).alert.happened).toBe('entered Enterprise Software');
  });
  it('hot: a hot account, or a view of a hot path', () => {
    expect(fires(alert({ type: 'hot', hot_paths: [] }), view({ hot_account: true }))).toBe(true);
    expect(fires(alert({ type: 'hot', hot_paths: ['/pricing*'] }), view())).toBe(true);
    expect(fires(alert({ type: 'hot', hot_paths: ['/docs*'] }), view())).toBe(false);
  });
  it('stage_reached: the stage mark of this product and stage was set with this view', () => {
    const a = alert({ type: 'stage_reached', product: 'cdp', stage: 'Decision' });
    expect(fires(a, view(), facts({ reached: [{ product: 'cdp', stage: 'Decision' }] }))).toBe(true);
    expect(fires(a, view(), facts({ reached: [{ product: 'cdp', stage: 'Consideration' }] }))).toBe(false);
    expect(fires(a, view(), facts())).toBe(false);
  });
  it('first_visit: the first view of the day after N days without a view', () => {
    const a = alert({ type: 'first_visit', days: 30 });
    expect(fires(a, view(), facts({ previous_visit_day: null }))).toBe(true);
    expect(fires(a, view(), facts({ previous_visit_day: '2026-10-25' }))).toBe(true); // 31 days before
    expect(fires(a, view(), facts({ previous_visit_day: '2026-10-26' }))).toBe(false); // 30 days before
    expect(fires(a, view({ first_of_day_for_account: false }), facts({ previous_visit_day: null }))).toBe(false);
  });
  it('visited: a page matching the glob (the product’s one matcher; the query never counts)', () => {
    expect(fires(alert({ type: 'visited', path: '/pricing*' }), view({ path: '/pricing/enterprise?utm_source=x' }))).toBe(true);
    expect(fires(alert({ type: 'visited', path: '/pricing' }), view({ path: '/pricing?x=1' }))).toBe(true);
    expect(fires(alert({ type: 'visited', path: '/pricing' }), view({ path: '/pricing/b' }))).toBe(false);
  });
  it('a paused alert plans nothing', () => {
    expect(fires(alert({ type: 'hot', hot_paths: [] }, { paused: true }), view({ hot_account: true }))).toBe(false);
  });
});

describe('filters', () => {
  const hot = (filter: StoredAlert['filter']) => alert({ type: 'hot', hot_paths: [] }, { filter });
  const v = view({ hot_account: true });
  it('segments, lists, page views, with or without an owner', () => {
    expect(fires(hot({ segments: [101] }), v)).toBe(true);
    expect(fires(hot({ segments: [102] }), v)).toBe(false);
    expect(fires(hot({ lists: ['top'] }), v, facts({ lists: ['top'] }))).toBe(true);
    expect(fires(hot({ lists: ['top'] }), v)).toBe(false);
    expect(fires(hot({ min_page_views: 2 }), v)).toBe(false);
    const owner = { email: 'o@acme.test', is_user: true, slack_member_id: null, teams_mention: null, source: 'owners_list' as const };
    expect(fires(hot({ owner: 'with' }), v, facts({ owner }))).toBe(true);
    expect(fires(hot({ owner: 'with' }), v)).toBe(false);
    expect(fires(hot({ owner: 'without' }), v)).toBe(true);
  });
});

describe('routing to the owner', () => {
  const owner = { email: 'o@acme.test', is_user: true, slack_member_id: 'U0OWNER', teams_mention: null, source: 'crm' as const };
  const v = view({ hot_account: true });
  const routes = (a: StoredAlert, f: AlertFacts) => plan(a, v, f).map((p) => ({ key: p.dedupe_key, ...(p.event as AlertEvent).alert }));
  it('beside the channel: the channel (with the @mention) and a mail to the owner, keyed per trigger, account and day', () => {
    const r = routes(alert({ type: 'hot', hot_paths: [] }, { route_to_owner: { instead_of_channel: false } }), facts({ owner }));
    expect(r.map((x) => [x.key, x.via, x.to])).toEqual([
      ['hot|900001|2026-11-25|channel', 'channel', []],
      ['hot|900001|2026-11-25|owner', 'mail', ['o@acme.test']],
    ]);
    expect(r[0]!.mention).toEqual({ slack: 'U0OWNER', teams: null });
  });
  it('instead of the channel: the owner only; an owner who is not a user goes to the fallback (counted by reason)', () => {
    const a = alert({ type: 'hot', hot_paths: [] }, { route_to_owner: { instead_of_channel: true, fallback: { to: ['sales@acme.test'] } } });
    expect(routes(a, facts({ owner })).map((x) => x.via)).toEqual(['mail']);
    const notUser = routes(a, facts({ owner: { ...owner, is_user: false } }));
    expect(notUser.map((x) => [x.via, x.to, x.fallback])).toEqual([
      ['channel', [], null],
      ['mail', ['sales@acme.test'], 'not_a_user'],
    ]);
    const none = routes(alert({ type: 'hot', hot_paths: [] }, { route_to_owner: { instead_of_channel: true } }), facts());
    expect(none.map((x) => [x.via, x.fallback])).toEqual([['channel', 'no_owner']]);
  });
});

describe('escaping: a company name cannot ping a channel or inject markup', () => {
  const evil = '<!channel> <at>General</at> *Evil* [click](https://evil.example) & Co';
  const body = () => {
    const [p] = plan(alert({ type: 'hot', hot_paths: [] }), view({ hot_account: true, company: { name: evil, domain: 'evil.example' } }, evil));
    return readBody(JSON.stringify(p!.event))!;
  };
  it('Slack: <, >, & escaped in every mrkdwn text (the header is plain_text, shown as written)', () => {
    const message = alertSlackMessage([body()], { publicBaseUrl: 'https://svc.example' })!;
    const mrkdwn: string[] = [message.text];
    JSON.stringify(message.blocks, (_key, value) => {
      if (value && typeof value === 'object' && value.type === 'mrkdwn') mrkdwn.push(value.text);
      return value;
    });
    expect(mrkdwn.join('\n')).not.toContain('<!channel>');
    expect(mrkdwn.join('\n')).not.toContain('<at>');
    expect(message.text).toContain('&lt;!channel&gt;');
  });
  it('Teams: no <at> from data (the only mention is ours), Markdown escaped, the card valid', () => {
    const message = alertTeamsMessage([body()], { publicBaseUrl: 'https://svc.example' })!;
    const card = message.attachments[0].content;
    expect(adaptiveCardProblems(card as unknown as Record<string, unknown>)).toEqual([]);
    const text = JSON.stringify(card.body);
    expect(text).not.toMatch(/<at>/);
    expect(text).toContain('\\\\*Evil\\\\*');
    expect(text).toContain('\\\\[click\\\\]\\\\(https://evil.example\\\\)');
    expect(card.msteams?.entities ?? []).toEqual([]);
  });
  it('mail: HTML escaped, the subject one line', () => {
    const mail = alertMail(body(), { publicBaseUrl: 'https://svc.example' })!;
    expect(mail.html).not.toContain('<at>');
    expect(mail.html).toContain('&lt;!channel&gt;');
    expect(mail.subject).not.toMatch(/[\r\n]/);
  });
});

describe('destination hosts', () => {
  it('Slack: hooks.slack.com over https; Teams: Workflows hosts; retired connectors refused with a message saying so', () => {
    expect(chatUrlProblem('slack', 'https://hooks.slack.com/services/T0/B0/x', false)).toBeNull();
    expect(chatUrlProblem('slack', 'https://hooks.example.com/services/T0/B0/x', false)).toContain('hooks.slack.com');
    expect(chatUrlProblem('teams', 'https://prod-23.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x', false)).toBeNull();
    expect(chatUrlProblem('teams', 'https://default123.environment.api.powerplatform.com/powerautomate/automations/direct/workflows/x', false)).toBeNull();
    expect(chatUrlProblem('teams', 'https://evil.example/logic.azure.com', false)).toContain('.logic.azure.com');
    expect(chatUrlProblem('teams', 'https://acme.webhook.office.com/webhookb2/x', true)).toBe(TEAMS_RETIRED);
    // Other hosts only with the opt-in for tests and private deployments.
    expect(chatUrlProblem('teams', 'http://127.0.0.1:9999/hook', false)).toContain('SVC_WEBHOOK_ALLOW_PRIVATE');
    expect(chatUrlProblem('teams', 'http://127.0.0.1:9999/hook', true)).toBeNull();
  });
});

describe('owners list CSV', () => {
  it('account rows and territory rules; the first matching rule wins', () => {
    const up = readOwnersCsv(
      'Domain,Company ID,Owner Email,Slack,Teams,Country,Industry,Size\nnorthwind.example,,ann@acme.test,U0ANN,,,,\n,900002,bob@acme.test,,,,,\n,,dach@acme.test,,,Germany;Austria,,\n,,us@acme.test,,,United States,Software,"1,000-4,999"\n,,rest@acme.test,,,United States,,\n',
    );
    expect(up.owners.map((o) => [o.key, o.owner_email, o.slack_member_id])).toEqual([
      ['domain:northwind.example', 'ann@acme.test', 'U0ANN'],
      ['company:900002', 'bob@acme.test', null],
    ]);
    expect(territoryOf(up.territories, company())?.owner_email).toBe('us@acme.test');
    expect(territoryOf(up.territories, { ...company(), industry: 'Retail' })?.owner_email).toBe('rest@acme.test');
  });
  it('a bad row refuses the file, naming the row', () => {
    expect(() => readOwnersCsv('domain,owner_email,slack\nnorthwind.example,ann@acme.test,<!channel>\n')).toThrow(/row 2: slack_member_id/);
    expect(() => readOwnersCsv('domain\nnorthwind.example\n')).toThrow(/owner_email/);
  });
});
