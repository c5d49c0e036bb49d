import { describe, expect, it } from 'vitest';
import { emptyWebhookForm, webhookRequestBody } from './webhook-form.ts';

describe('console webhook form', () => {
  it('turns the fields into the admin API body', () => {
    expect(webhookRequestBody({ ...emptyWebhookForm(), url: ' https://hooks.example.com/svc ', hot_paths: '/pricing*, /demo\n/contact*' })).toEqual({
      ok: true,
      body: { url: 'https://hooks.example.com/svc', events: ['account.visited', 'account.hot'], hot_paths: ['/pricing*', '/demo', '/contact*'] },
    });
    expect(webhookRequestBody({ url: 'https://h.example/', visited: true, hot: false, hot_paths: '' })).toEqual({
      ok: true,
      body: { url: 'https://h.example/', events: ['account.visited'], hot_paths: [] },
    });
  });

  it('points at the field in error with the schema message', () => {
    expect(webhookRequestBody({ ...emptyWebhookForm(), url: 'ftp://x' })).toMatchObject({ ok: false, field: 'url' });
    expect(webhookRequestBody({ ...emptyWebhookForm(), url: 'https://x.example', visited: false, hot: false })).toEqual({
      ok: false,
      field: 'visited',
      message: 'Choose at least one event.',
    });
    expect(webhookRequestBody({ ...emptyWebhookForm(), url: 'https://x.example', hot_paths: 'pricing' })).toMatchObject({
      ok: false,
      field: 'hot_paths',
      message: expect.stringContaining('pricing'),
    });
  });
});
