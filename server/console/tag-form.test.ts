import { describe, expect, it } from 'vitest';
import { NewTag, TagPatch, TagSettings } from '../../core/access-records.ts';
import { emptyTagForm, tagEditForm, tagPatchBody, tagRequestBody, tagSettingsBody, tagSettingsForm } from './tag-form.ts';

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
  it('starts from the tag: absent features on, GPC honoured unless turned off, the rest as set or empty', () => {
    expect(tagSettingsForm({})).toEqual({
      features: { personalisation: true, form_fill: true, spa: true, page_views: true, debug: true },
      integrations: { ga4: false, segment: false, page_command: false },
      consent_default: '',
      honor_gpc: true,
      min_confidence: '',
      fields: '',
      cache_ttl_ms: '',
      anti_flicker_timeout_ms: '',
    });
    expect(
      tagSettingsForm({
        features: { spa: false },
        consent_default: 'pending',
        honor_gpc: false,
        fields: ['name', 'domain'],
        min_confidence: 'High',
        cache_ttl_ms: 0,
      }),
    ).toMatchObject({
      features: { spa: false, page_views: true },
      consent_default: 'pending',
      honor_gpc: false,
      fields: 'name, domain',
      min_confidence: 'High',
      cache_ttl_ms: '0',
    });
  });

  it('sends the whole settings object (every key is on the form: empty = default); the API schema takes it', () => {
    const current = {
      fields: ['name', 'domain'],
      min_confidence: 'High' as const,
      consent_default: 'denied' as const,
      features: { debug: false },
      anti_flicker_timeout_ms: 800,
    };
    const form = { ...tagSettingsForm(current), consent_default: '' as const, cache_ttl_ms: '60000' };
    form.features.spa = false;
    const r = tagSettingsBody(form);
    expect(r).toEqual({
      ok: true,
      body: {
        fields: ['name', 'domain'],
        min_confidence: 'High',
        features: { personalisation: true, form_fill: true, spa: false, page_views: true, debug: false },
        honor_gpc: true,
        cache_ttl_ms: 60000,
        anti_flicker_timeout_ms: 800,
      },
    });
    expect(r.ok && TagSettings.safeParse(r.body).success).toBe(true);
    expect(tagSettingsBody({ ...tagSettingsForm({}), consent_default: 'granted' })).toMatchObject({ ok: true, body: { consent_default: 'granted' } });
    // Emptied fields go back to the bundle's defaults: not sent.
    const cleared = tagSettingsBody({ ...tagSettingsForm(current), fields: ' ', min_confidence: '', anti_flicker_timeout_ms: '' });
    expect(cleared.ok && Object.keys(cleared.body).sort()).toEqual(['consent_default', 'features', 'honor_gpc']);
  });

  it("edits integrations in the setting's shape: the tools, true for the code alone, absent for off", () => {
    expect(tagSettingsForm({ features: { integrations: { ga4: true } } }).integrations).toEqual({ ga4: true, segment: false, page_command: true });
    expect(tagSettingsForm({ features: { integrations: true } }).integrations).toEqual({ ga4: false, segment: false, page_command: true });
    expect(tagSettingsForm({ features: { integrations: false } }).integrations).toEqual({ ga4: false, segment: false, page_command: false });
    const chosen = (integrations: { ga4: boolean; segment: boolean; page_command: boolean }, current = {}) => {
      const r = tagSettingsBody({ ...tagSettingsForm(current), integrations }, current);
      expect(r.ok && TagSettings.safeParse(r.body).success).toBe(true);
      return r.ok ? r.body.features : 'refused';
    };
    expect(chosen({ ga4: true, segment: true, page_command: false })).toMatchObject({ integrations: { ga4: true, segment: true } });
    expect(chosen({ ga4: false, segment: true, page_command: true })).toMatchObject({ integrations: { ga4: false, segment: true } });
    expect(chosen({ ga4: false, segment: false, page_command: true })).toMatchObject({ integrations: true });
    // Unticked: off, which for integrations is the absent key.
    expect(chosen({ ga4: false, segment: false, page_command: false }, { features: { integrations: { ga4: true } } })).not.toHaveProperty('integrations');
    // The tools a setting names survive a save that did not touch them.
    const current = { features: { integrations: { ga4: true, segment: true } } };
    expect(tagSettingsBody(tagSettingsForm(current), current)).toMatchObject({ ok: true, body: { features: { integrations: { ga4: true, segment: true } } } });
  });

  it('keeps what the form does not edit: a save sends the current settings back, not a wiped object', () => {
    // A feature key or setting the form has no control for (a later version's, or one set through the API).
    const current = { features: { spa: false, later_feature: true }, later_setting: 'x', honor_gpc: false } as unknown as Parameters<typeof tagSettingsBody>[1];
    const r = tagSettingsBody({ ...tagSettingsForm(current!), cache_ttl_ms: '5' }, current);
    expect(r).toMatchObject({ ok: true, body: { later_setting: 'x', honor_gpc: false, cache_ttl_ms: 5, features: { later_feature: true, spa: false } } });
    // Without the current settings (a new tag) the body is the form's alone.
    expect(tagSettingsBody(tagSettingsForm({}))).toMatchObject({ ok: true, body: { honor_gpc: true } });
  });

  it('refuses numbers and lists the API refuses, naming the field', () => {
    const base = tagSettingsForm({});
    expect(tagSettingsBody({ ...base, cache_ttl_ms: '-1' })).toMatchObject({ ok: false, field: 'cache_ttl_ms' });
    expect(tagSettingsBody({ ...base, cache_ttl_ms: String(31 * 86_400_000) })).toMatchObject({ ok: false, field: 'cache_ttl_ms' });
    expect(tagSettingsBody({ ...base, anti_flicker_timeout_ms: '1.5' })).toMatchObject({ ok: false, field: 'anti_flicker_timeout_ms' });
    expect(tagSettingsBody({ ...base, anti_flicker_timeout_ms: '10001' })).toMatchObject({ ok: false, field: 'anti_flicker_timeout_ms' });
    expect(tagSettingsBody({ ...base, fields: 'x'.repeat(65) })).toMatchObject({ ok: false, field: 'fields' });
    for (const [field, value] of [
      ['cache_ttl_ms', '2592000000'],
      ['anti_flicker_timeout_ms', '10000'],
      ['anti_flicker_timeout_ms', '0'],
    ] as const) {
      const r = tagSettingsBody({ ...base, [field]: value });
      expect(r.ok && TagSettings.safeParse(r.body).success, `${field} ${value}`).toBe(true);
    }
  });
});

describe('tag edit form', () => {
  const tag = { allowed_domains: ['www.acme.test', '*.acme.test'], scores: true, segment_names: false, rate_limit: 6000, visitor_rate_limit: 300 };

  it('starts from the tag and sends only the fields it edits, as TagPatch takes them', () => {
    const form = { ...tagEditForm(tag), allowed_domains: 'www.acme.test shop.acme.test', segment_names: true, rate_limit: '1200' };
    expect(tagEditForm(tag)).toEqual({
      allowed_domains: 'www.acme.test, *.acme.test',
      scores: true,
      segment_names: false,
      rate_limit: '6000',
      visitor_rate_limit: '300',
    });
    const r = tagPatchBody(form);
    expect(r).toEqual({
      ok: true,
      body: { allowed_domains: ['www.acme.test', 'shop.acme.test'], scores: true, segment_names: true, rate_limit: 1200, visitor_rate_limit: 300 },
    });
    expect(r.ok && TagPatch.safeParse(r.body).success).toBe(true);
  });

  it('refuses what the API refuses, naming the field', () => {
    expect(tagPatchBody({ ...tagEditForm(tag), allowed_domains: '' })).toMatchObject({ ok: false, field: 'allowed_domains' });
    expect(tagPatchBody({ ...tagEditForm(tag), allowed_domains: 'https://x.test/' })).toMatchObject({ ok: false, field: 'allowed_domains' });
    expect(tagPatchBody({ ...tagEditForm(tag), rate_limit: '0' })).toMatchObject({ ok: false, field: 'rate_limit' });
  });
});
