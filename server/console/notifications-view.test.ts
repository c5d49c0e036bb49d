import { describe, expect, it } from 'vitest';
import { DEFAULT_DIGEST_SETTINGS, DIGEST_FREQUENCIES, DigestScope, type DigestSettings, DigestSettingsPatch } from '../../core/digest-records.ts';
import {
  digestSummary,
  FREQUENCY_LABELS,
  HOUR_OPTIONS,
  hourLabel,
  type NotificationFields,
  notificationFields,
  notificationsPatch,
  SCOPE_LABELS,
  timeZoneOptions,
} from './notifications-view.ts';

const LA = 'America/Los_Angeles';
const names = { segment: (id: number) => (id === 7 ? 'Enterprise' : `#${id}`), list: (id: string) => (id === 'hot' ? 'Hot accounts' : id) };

describe('the notifications form', () => {
  it('offers every frequency and scope the records know', () => {
    expect(Object.keys(FREQUENCY_LABELS)).toEqual([...DIGEST_FREQUENCIES]);
    expect(Object.keys(SCOPE_LABELS)).toHaveLength(DigestScope.options.length);
    for (const type of Object.keys(SCOPE_LABELS))
      expect(DigestScope.safeParse({ type, ...(type === 'segments' ? { segments: [1] } : {}) }).success, type).toBe(true);
    expect(HOUR_OPTIONS).toHaveLength(24);
    expect(HOUR_OPTIONS[7]).toEqual(['7', '07:00']);
    expect(hourLabel(23)).toBe('23:00');
  });

  it("proposes the browser's zone to a user who never set one, and keeps a chosen zone", () => {
    expect(notificationFields(DEFAULT_DIGEST_SETTINGS, LA)).toMatchObject({ digest: 'off', hour: '8', time_zone: LA, scope: 'all' });
    expect(notificationFields(DEFAULT_DIGEST_SETTINGS, null).time_zone).toBe('UTC');
    const chosen: DigestSettings = { digest: 'weekly', hour: 9, time_zone: 'Europe/Berlin', scope: { type: 'segments', segments: [7], lists: ['hot'] } };
    expect(notificationFields(chosen, LA)).toEqual({
      digest: 'weekly',
      hour: '9',
      time_zone: 'Europe/Berlin',
      scope: 'segments',
      segments: [7],
      lists: ['hot'],
    });
    // Turned on in UTC on purpose: kept.
    expect(notificationFields({ ...chosen, digest: 'daily', time_zone: 'UTC' }, LA).time_zone).toBe('UTC');
  });

  it('builds a PATCH body the API takes: daily at 07:00 in Los Angeles about my accounts', () => {
    const f: NotificationFields = { digest: 'daily', hour: '7', time_zone: LA, scope: 'my_accounts', segments: [7], lists: [] };
    const result = notificationsPatch(f);
    expect(result).toEqual({ ok: true, body: { digest: 'daily', hour: 7, time_zone: LA, scope: { type: 'my_accounts' } } });
    if (result.ok) expect(DigestSettingsPatch.parse(result.body)).toEqual(result.body);
    const scoped = notificationsPatch({ ...f, scope: 'segments', lists: ['hot'] });
    expect(scoped.ok && scoped.body.scope).toEqual({ type: 'segments', segments: [7], lists: ['hot'] });
    if (scoped.ok) expect(DigestSettingsPatch.safeParse(scoped.body).success).toBe(true);
  });

  it('names the field that is wrong before asking the server', () => {
    const f: NotificationFields = { digest: 'daily', hour: '7', time_zone: LA, scope: 'segments', segments: [], lists: [] };
    expect(notificationsPatch(f)).toMatchObject({ ok: false, field: 'scope' });
    expect(notificationsPatch({ ...f, scope: 'all', hour: '24' })).toMatchObject({ ok: false, field: 'hour' });
    expect(notificationsPatch({ ...f, scope: 'all', hour: '' })).toMatchObject({ ok: false, field: 'hour' });
    expect(notificationsPatch({ ...f, scope: 'all', time_zone: ' ' })).toMatchObject({ ok: false, field: 'time_zone' });
  });

  it("lists the runtime's zones with the saved and the browser's added once, sorted", () => {
    expect(timeZoneOptions(['Europe/Berlin', LA], 'UTC', LA, null)).toEqual([LA, 'Europe/Berlin', 'UTC']);
    const real = Intl.supportedValuesOf('timeZone');
    expect(timeZoneOptions(real, LA)).toContain(LA);
  });

  it('says what the saved settings mean', () => {
    expect(digestSummary(DEFAULT_DIGEST_SETTINGS, names.segment, names.list)).toBe('You get no digest mails.');
    expect(digestSummary({ digest: 'daily', hour: 7, time_zone: LA, scope: { type: 'all' } }, names.segment, names.list)).toBe(
      'A daily digest every day at 07:00 (America/Los_Angeles), about every visiting account.',
    );
    expect(
      digestSummary({ digest: 'weekly', hour: 9, time_zone: 'UTC', scope: { type: 'segments', segments: [7], lists: ['hot'] } }, names.segment, names.list),
    ).toBe('A weekly digest every Monday at 09:00 (UTC), about accounts in Enterprise, Hot accounts.');
  });
});
