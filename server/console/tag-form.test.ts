import { describe, expect, it } from 'vitest';
import { NewTag, TagSettings } from '../state/store.ts';
import { emptyTagForm, tagRequestBody, tagSettingsBody, tagSettingsForm } from './tag-form.ts';

describe('create-tag form', () => {
  it('builds the admin API body: domains split and trimmed, features in settings, limits top-level', () => {
    const f = { ...emptyTagForm(), allowed_domains: ' www.acme.test, *.acme.test\nlocalhost ', scores: true, rate_limit: '1200', visitor_rate_limit: '' };
    expect(tagRequestBody('acme', f)).toEqual({
      ok: true,
      body: {
        customer_id: 'acme',
        allowed_domains: ['www.acme.test', '*.acme.test', 'localhost'],
        scores: true,
        segment_names: false,
        settings: { features: { personalisation: true, form_fill: true, spa: true, page_views: true, debug: false } },
        rate_limit: 1200,
        visitor_rate_limit: 300,
      },
    });
  });

  it('refuses what the API refuses, naming the field', () => {
    expect(tagRequestBody('acme', emptyTagForm())).toMatchObject({
      ok: false,
      field: 'allowed_domains',
      message: expect.stringMatching(/at least one allowed domain/),
    });
    expect(tagRequestBody('acme', { ...emptyTagForm(), allowed_domains: 'a'.repeat(254) })).toMatchObject({ ok: false, field: 'allowed_domains' });
    expect(tagRequestBody('acme', { ...emptyTagForm(), allowed_domains: 'x.test', rate_limit: '0' })).toMatchObject({ ok: false, field: 'rate_limit' });
    expect(tagRequestBody('acme', { ...emptyTagForm(), allowed_domains: 'x.test', visitor_rate_limit: '2.5' })).toMatchObject({
      ok: false,
      field: 'visitor_rate_limit',
    });
  });
});

describe('allowed domains: the console decides as the API schema does', () => {
  it.each(['', '   ', 'www.acme.test', 'www.acme.test, *.acme.test', 'localhost 127.0.0.1', 'a'.repeat(253), 'a'.repeat(254), `ok.test, ${'b'.repeat(300)}`])(
    '%s',
    (typed) => {
      const console = tagRequestBody('acme', { ...emptyTagForm(), allowed_domains: typed });
      const api = NewTag.safeParse(console.ok ? console.body : { customer_id: 'acme', allowed_domains: typed.split(/[,\s]+/).filter(Boolean) });
      expect(console.ok).toBe(api.success);
    },
  );
});

describe('tag settings form', () => {
  it('starts from the tag: absent features on, GPC honoured unless turned off', () => {
    expect(tagSettingsForm({})).toEqual({
      features: { personalisation: true, form_fill: true, spa: true, page_views: true, debug: true },
      consent_default: '',
      honor_gpc: true,
    });
    expect(tagSettingsForm({ features: { spa: false }, consent_default: 'pending', honor_gpc: false })).toMatchObject({
      features: { spa: false, page_views: true },
      consent_default: 'pending',
      honor_gpc: false,
    });
  });

  it('sends the whole settings object, keeping what the form does not edit; the API schema takes it', () => {
    const current = { fields: ['name', 'domain'], min_confidence: 'High' as const, consent_default: 'denied' as const, features: { debug: false } };
    const form = { ...tagSettingsForm(current), consent_default: '' as const };
    form.features.spa = false;
    const body = tagSettingsBody(current, form);
    expect(body).toEqual({
      fields: ['name', 'domain'],
      min_confidence: 'High',
      features: { personalisation: true, form_fill: true, spa: false, page_views: true, debug: false },
      honor_gpc: true,
    });
    expect(TagSettings.safeParse(body).success).toBe(true);
    expect(tagSettingsBody({}, { ...tagSettingsForm({}), consent_default: 'granted' })).toMatchObject({ consent_default: 'granted' });
  });
});
