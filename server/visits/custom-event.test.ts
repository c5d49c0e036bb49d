import { describe, expect, it } from 'vitest';
import { parseBeacon } from './beacon.ts';
import { looksLikeEmail, looksLikeNumber, looksLikeToken, personalName, scrubProperties } from './custom-event.ts';

describe('custom event beacons', () => {
  const event = (extra: object) => JSON.stringify({ type: 'event', name: 'demo_requested', path: '/pricing', session: 'abcdefgh', ...extra });

  it('accepts a name and at most 10 flat properties, and refuses anything else with its reason', () => {
    const ok = parseBeacon(event({ properties: { plan: 'pro', seats: 5, trial: true } }));
    expect(ok).toEqual({
      ok: true,
      beacon: { type: 'event', name: 'demo_requested', properties: { plan: 'pro', seats: 5, trial: true }, path: '/pricing', session: 'abcdefgh' },
    });
    expect(parseBeacon(event({})).ok).toBe(true);
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, i]));
    expect(parseBeacon(event({ properties: ten })).ok).toBe(true);
    const refused: [object, RegExp][] = [
      [{ name: 'Demo Requested' }, /^invalid custom event: name: an event name is/],
      [{ name: '1st_visit' }, /name/],
      [{ name: 'x'.repeat(65) }, /name/],
      [{ name: '' }, /name/],
      [{ properties: { ...ten, p10: 10 } }, /^invalid custom event: properties: at most 10 properties/],
      [{ properties: { nested: { a: 1 } } }, /properties/],
      [{ properties: { list: [1, 2] } }, /properties/],
      [{ properties: { empty: null } }, /properties/],
      [{ properties: { long: 'x'.repeat(201) } }, /at most 200 characters/],
      [{ properties: { 'bad name': 1 } }, /property name/],
      [{ properties: 'plan=pro' }, /properties/],
      [{ path: 'pricing' }, /path must start with \//],
    ];
    for (const [extra, message] of refused) {
      const r = parseBeacon(event(extra));
      expect(r.ok, JSON.stringify(extra)).toBe(false);
      expect(!r.ok && r.message, JSON.stringify(extra)).toMatch(message);
    }
  });

  it('accepts engaged time in milliseconds and refuses a negative or missing one', () => {
    const base = { type: 'engagement', path: '/pricing', session: 'abcdefgh' };
    expect(parseBeacon(JSON.stringify({ ...base, engaged_ms: 5234.5 }))).toEqual({ ok: true, beacon: { ...base, engaged_ms: 5234.5 } });
    for (const bad of [{ ...base, engaged_ms: -1 }, base, { ...base, engaged_ms: '5000' }]) {
      const r = parseBeacon(JSON.stringify(bad));
      expect(r.ok).toBe(false);
      expect(!r.ok && r.message).toMatch(/^invalid engaged time: engaged_ms/);
    }
  });
});

describe('custom event privacy', () => {
  it('drops values that look like an email address, a token or a phone or card number', () => {
    for (const v of ['jane@northwind.example', 'Contact: jane.doe+x@mail.co.uk please', 'a@b', 'x@y.z']) expect(looksLikeEmail(v), v).toBe(true);
    for (const v of ['@handle', 'email me', 'price @ 5', 'pro@', '']) expect(looksLikeEmail(v), v).toBe(false);
    for (const v of [
      'sk_live_51H8kXyZaBcDeFgHiJkLmNoP',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'session=AbCdEfGh1234567890IjKlMnOp',
    ])
      expect(looksLikeToken(v), v).toBe(true);
    for (const v of ['enterprise_annual_billing_plan_with_support', 'demo-requested-from-the-pricing-page', 'pro', 'plan-2026-q1'])
      expect(looksLikeToken(v), v).toBe(false);
    for (const v of ['+1 (415) 555-0100', '4111 1111 1111 1111', '030 12345678', '123456789']) expect(looksLikeNumber(v), v).toBe(true);
    for (const v of ['2026-12-07', 'plan 12', '12345678', '$1,200.00']) expect(looksLikeNumber(v), v).toBe(false);
  });

  it('drops properties named for personal data or secrets, whatever their value', () => {
    for (const n of [
      'email',
      'userEmail',
      'e_mail',
      'password',
      'api_key',
      'apiKey',
      'accessToken',
      'phone',
      'phoneNumber',
      'client_secret',
      'ssn',
      'iban',
      'card_number',
      'creditCard',
    ])
      expect(personalName(n), n).toBe(true);
    for (const n of ['plan', 'seats', 'mobile_app', 'campaign', 'utm_source', 'tier']) expect(personalName(n), n).toBe(false);
  });

  it('keeps the rest, and URLs and paths as a page view’s path is kept (no query but utm_* and kept ones, no fragment, no credentials)', () => {
    const { kept, dropped } = scrubProperties(
      {
        plan: 'pro',
        seats: 5,
        trial: true,
        contact: 'jane@northwind.example',
        key: 'sk_live_51H8kXyZaBcDeFgHiJkLmNoP',
        phone_ok: 'call +1 415 555 0100',
        userEmail: 'nothing here',
        from: '/pricing?utm_source=news&email=jane%40northwind.example&plan=pro#top',
        link: 'https://user:secret@www.acme.example/signup?token=abc&utm_medium=mail',
      },
      ['plan'],
    );
    expect(kept).toEqual({
      plan: 'pro',
      seats: 5,
      trial: true,
      from: '/pricing?utm_source=news&plan=pro',
      link: 'https://www.acme.example/signup?utm_medium=mail',
    });
    expect(dropped.sort()).toEqual(['contact', 'key', 'phone_ok', 'userEmail']);
    expect(scrubProperties(undefined)).toEqual({ kept: {}, dropped: [] });
  });
});
