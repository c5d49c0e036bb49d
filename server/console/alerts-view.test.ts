import { describe, expect, it } from 'vitest';
import { ALERT_DESTINATIONS, ALERT_TRIGGERS, REACHABLE_STAGES as RECORD_STAGES } from '../../core/alert-records.ts';
import { AlertPatch, type AlertView, NewAlert } from '../alerts/schema.ts';
import type { DeliveryRecord } from '../webhooks/schema.ts';
import {
  type AlertFormFields,
  alertBody,
  alertFormOf,
  DESTINATION_LABELS,
  destinationText,
  emptyAlertForm,
  filterText,
  ownersReportText,
  ownersSummary,
  ownerText,
  REACHABLE_STAGES,
  TRIGGER_LABELS,
  testResultText,
  testSettled,
  triggerText,
} from './alerts-view.ts';

const names = { segment: (id: number) => (id === 3 ? 'Enterprise Software' : `segment #${id}`), list: (id: string) => (id === 'hot' ? 'Hot accounts' : id) };
const TEAMS = 'https://prod-12.westeurope.logic.azure.com/workflows/abc/triggers/manual/paths/invoke?sig=secret';
const form = (over: Partial<AlertFormFields>): AlertFormFields => ({ ...emptyAlertForm(), name: 'Enterprise on the site', ...over });

const saved: AlertView = {
  id: 'wh_1',
  customer_id: 'acme',
  name: 'Enterprise to the rep',
  trigger: { type: 'segment_entered', segment: 3 },
  filter: { min_page_views: 2, owner: 'with' },
  destination: { type: 'teams', url: 'https://prod-12.westeurope.logic.azure.com/****' },
  route_to_owner: { instead_of_channel: false, fallback: { to: ['sales@acme.test'] } },
  paused: false,
  created_at: '2026-03-01T10:00:00.000Z',
  created_by: 'marketer@acme.test',
};

const delivery = (over: Partial<DeliveryRecord>): DeliveryRecord => ({
  id: 'dl_1',
  event_id: 'evt_1',
  webhook_id: 'wh_1',
  customer_id: 'acme',
  type: 'segment.entered',
  company_id: '900001',
  status: 'pending',
  attempts: 0,
  created_at: '2026-03-01T10:00:00.000Z',
  next_attempt_at: '2026-03-01T10:00:05.000Z',
  delivered_at: null,
  last_attempt_at: null,
  last_status: null,
  last_error: null,
  test: true,
  ...over,
});

describe('the alert form', () => {
  it('offers exactly the triggers, destinations and stages of the records', () => {
    expect(Object.keys(TRIGGER_LABELS)).toEqual([...ALERT_TRIGGERS]);
    expect(Object.keys(DESTINATION_LABELS)).toEqual([...ALERT_DESTINATIONS]);
    expect(REACHABLE_STAGES).toEqual(RECORD_STAGES);
  });

  it('builds the body of "entered segment X → the owner" on Teams, which the API takes as is', () => {
    const result = alertBody(form({ segment: '3', destination: 'teams', url: ` ${TEAMS} `, route_to_owner: true }), null);
    expect(result).toEqual({
      ok: true,
      body: {
        name: 'Enterprise on the site',
        trigger: { type: 'segment_entered', segment: 3 },
        filter: {},
        destination: { type: 'teams', url: TEAMS },
        route_to_owner: { instead_of_channel: false },
      },
    });
    if (result.ok) expect(NewAlert.safeParse(result.body).success).toBe(true);
  });

  it("builds each trigger's body with its fields, and the filters", () => {
    const body = (over: Partial<AlertFormFields>) => {
      const r = alertBody(form({ destination: 'email', to: 'Ann@Acme.test; bo@acme.test', ...over }), null);
      if (!r.ok) throw new Error(r.message);
      expect(NewAlert.safeParse(r.body).success).toBe(true);
      return r.body;
    };
    expect(body({ trigger: 'hot', hot_paths: '/pricing*, /demo*' }).trigger).toEqual({ type: 'hot', hot_paths: ['/pricing*', '/demo*'] });
    expect(body({ trigger: 'hot' }).trigger).toEqual({ type: 'hot', hot_paths: [] });
    expect(body({ trigger: 'stage_reached', product: 'CDP', stage: 'Purchase' }).trigger).toEqual({ type: 'stage_reached', product: 'CDP', stage: 'Purchase' });
    expect(body({ trigger: 'first_visit', days: '14' }).trigger).toEqual({ type: 'first_visit', days: 14 });
    expect(body({ trigger: 'visited', path: '/careers*' }).trigger).toEqual({ type: 'visited', path: '/careers*' });
    const filtered = body({ trigger: 'hot', filter_segments: [3], filter_lists: ['hot'], min_page_views: '3', owner: 'without' });
    expect(filtered.filter).toEqual({ segments: [3], lists: ['hot'], min_page_views: 3, owner: 'without' });
    expect(filtered.destination).toEqual({ type: 'email', to: ['ann@acme.test', 'bo@acme.test'] });
  });

  it('names the first wrong field before asking the server', () => {
    const wrong = (over: Partial<AlertFormFields>) => {
      const r = alertBody(form({ segment: '3', destination: 'slack', url: 'https://hooks.slack.com/services/T/B/x', ...over }), null);
      return r.ok ? null : r.field;
    };
    expect(wrong({})).toBeNull();
    expect(wrong({ name: '  ' })).toBe('name');
    expect(wrong({ segment: '' })).toBe('segment');
    expect(wrong({ trigger: 'hot', hot_paths: '/ok*, pricing' })).toBe('hot_paths');
    expect(wrong({ trigger: 'stage_reached', product: '' })).toBe('product');
    expect(wrong({ trigger: 'first_visit', days: '91' })).toBe('days');
    expect(wrong({ trigger: 'first_visit', days: '1.5' })).toBe('days');
    expect(wrong({ trigger: 'visited', path: '/a?b' })).toBe('path');
    expect(wrong({ min_page_views: '0' })).toBe('min_page_views');
    expect(wrong({ url: '' })).toBe('url');
    expect(wrong({ url: 'hooks.slack.com/services' })).toBe('url');
    expect(wrong({ destination: 'email', to: 'not-an-address' })).toBe('to');
    expect(wrong({ destination: 'email', to: '' })).toBe('to');
    expect(wrong({ route_to_owner: true, fallback: 'nobody' })).toBe('fallback');
  });

  it('edits a saved alert: its fields back in the form, the masked URL kept unless replaced', () => {
    const f = alertFormOf(saved);
    expect(f).toMatchObject({ name: saved.name, trigger: 'segment_entered', segment: '3', min_page_views: '2', owner: 'with', destination: 'teams', url: '' });
    expect(f).toMatchObject({ route_to_owner: true, instead_of_channel: false, fallback: 'sales@acme.test' });
    const kept = alertBody(f, saved);
    expect(kept.ok && kept.body).toEqual({
      name: saved.name,
      trigger: { type: 'segment_entered', segment: 3 },
      filter: { min_page_views: 2, owner: 'with' },
      route_to_owner: { instead_of_channel: false, fallback: { to: ['sales@acme.test'] } },
    });
    if (kept.ok) expect(AlertPatch.safeParse(kept.body).success).toBe(true);
    // Another destination type needs its own URL; no owner routing any more is null (removed).
    expect(alertBody({ ...f, destination: 'slack' }, saved)).toMatchObject({ ok: false, field: 'url' });
    const changed = alertBody({ ...f, destination: 'email', to: 'rep@acme.test', route_to_owner: false }, saved);
    expect(changed.ok && changed.body).toMatchObject({ destination: { type: 'email', to: ['rep@acme.test'] }, route_to_owner: null });
  });
});

describe('an alert in words', () => {
  it('says the trigger, the filters, the destination and the owner routing', () => {
    expect(triggerText({ type: 'segment_entered', segment: 3 }, names)).toBe('When an account enters Enterprise Software');
    expect(triggerText({ type: 'hot', hot_paths: ['/pricing*', '/demo*'] }, names)).toBe(
      'When an account becomes hot: a hot account, or a view of /pricing* or /demo*',
    );
    expect(triggerText({ type: 'stage_reached', product: 'CDP', stage: 'Decision' }, names)).toBe('When an account reaches Decision for CDP');
    expect(triggerText({ type: 'first_visit', days: 30 }, names)).toBe('When an account visits for the first time in 30 days');
    expect(triggerText({ type: 'visited', path: '/careers*' }, names)).toBe('When an account views /careers*');
    expect(filterText({}, names)).toBeNull();
    expect(filterText({ segments: [3, 9], lists: ['hot'], min_page_views: 1, owner: 'with' }, names)).toBe(
      'Only accounts in Enterprise Software or segment #9, on the list Hot accounts, with at least 1 page view in the visit, with an owner',
    );
    expect(destinationText(saved.destination)).toBe('To the Microsoft Teams channel https://prod-12.westeurope.logic.azure.com/****');
    expect(destinationText({ type: 'email', to: ['a@acme.test', 'b@acme.test'] })).toBe('By email to a@acme.test, b@acme.test');
    expect(ownerText(null, 'teams')).toBeNull();
    expect(ownerText({ instead_of_channel: false }, 'teams')).toBe(
      'Also to the account’s owner: mailed when a user of this workspace (@mentioned in the channel with a Teams mention).',
    );
    expect(ownerText({ instead_of_channel: true, fallback: { to: ['sales@acme.test'] } }, 'slack')).toMatch(
      /instead.*No owner found: mailed to sales@acme\.test\.$/,
    );
  });

  it("follows a test's delivery to its outcome", () => {
    expect(testSettled(null)).toBe(false);
    expect(testSettled(delivery({}))).toBe(false);
    expect(testResultText(null)).toBe('Test queued: sending…');
    expect(testResultText(delivery({ status: 'delivered', attempts: 1, last_status: 200 }))).toBe('Test delivered (HTTP 200).');
    const retried = delivery({ attempts: 1, last_status: 500 });
    expect(testSettled(retried)).toBe(true);
    expect(testResultText(retried)).toBe('Test not delivered yet: HTTP 500. It is retried at 10:00:05 UTC.');
    expect(testResultText(delivery({ status: 'failed', attempts: 8, last_error: 'connection refused' }))).toBe(
      'Test not delivered: connection refused. It is in the delivery log.',
    );
  });

  it('says what the owners upload read and what is uploaded', () => {
    expect(ownersReportText({ owners: 1, territories: 0 })).toBe('Read 1 account row and 0 territory rules; the list is replaced.');
    expect(ownersReportText({ owners: 1200, territories: 1 })).toBe('Read 1,200 account rows and 1 territory rule; the list is replaced.');
    expect(ownersSummary({ owners: [], territories: [], updated_at: null })).toBe('No owners list uploaded yet.');
    expect(ownersSummary({ owners: [1, 2], territories: [1], updated_at: '2026-03-01T10:00:00.000Z' })).toBe(
      '2 accounts with an owner and 1 territory rule, uploaded 2026-03-01.',
    );
  });
});
