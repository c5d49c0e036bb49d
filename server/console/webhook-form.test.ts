import { describe, expect, it } from 'vitest';
import { emptyWebhookForm, endpointSummary, webhookRequestBody } from './webhook-form.ts';

describe('console webhook form', () => {
  it('turns the fields into the admin API body', () => {
    expect(webhookRequestBody({ ...emptyWebhookForm(), url: ' https://hooks.example.com/svc ', hot_paths: '/pricing*, /demo\n/contact*' })).toEqual({
      ok: true,
      body: { url: 'https://hooks.example.com/svc', events: ['account.visited', 'account.hot'], hot_paths: ['/pricing*', '/demo', '/contact*'] },
    });
    expect(webhookRequestBody({ ...emptyWebhookForm(), url: 'https://h.example/', visited: true, hot: false, hot_paths: '' })).toEqual({
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

  it('a JSON endpoint sends the versions chosen (the newest when none) and its settings', () => {
    const form = { ...emptyWebhookForm(), url: 'https://h.example/', entered: true, versions: { 'account.visited': '1', 'account.hot': '' }, scores: true };
    expect(webhookRequestBody(form)).toEqual({
      ok: true,
      body: {
        url: 'https://h.example/',
        events: ['account.visited', 'account.hot', 'segment.entered'],
        hot_paths: ['/pricing*'],
        event_versions: { 'account.visited': 1 },
        scores: true,
      },
    });
  });

  it('a Slack endpoint sends its format and filters, and points at a bad page-view count', () => {
    const slack = { ...emptyWebhookForm(), format: 'slack' as const, url: 'https://hooks.slack.com/services/T/B/x', versions: { 'account.visited': '1' } };
    expect(webhookRequestBody({ ...slack, filter_segments: [7, 9], hot_only: true, min_page_views: ' 3 ' })).toEqual({
      ok: true,
      body: {
        url: 'https://hooks.slack.com/services/T/B/x',
        events: ['account.visited', 'account.hot'],
        hot_paths: ['/pricing*'],
        format: 'slack',
        filters: { segments: [7, 9], hot_only: true, min_page_views: 3 },
      },
    });
    expect(webhookRequestBody(slack)).toMatchObject({ ok: true, body: { format: 'slack' } });
    expect(webhookRequestBody(slack).ok && 'filters' in (webhookRequestBody(slack) as { body: object }).body).toBe(false);
    expect(webhookRequestBody({ ...slack, min_page_views: '0' })).toMatchObject({ ok: false, field: 'min_page_views' });
    expect(webhookRequestBody({ ...slack, min_page_views: 'lots' })).toMatchObject({ ok: false, field: 'min_page_views' });
    expect(webhookRequestBody({ ...slack, url: 'hooks.slack.com' })).toMatchObject({ ok: false, field: 'url', message: expect.stringContaining('Slack') });
  });

  it('summarises an endpoint: its format, each event’s version, its filters', () => {
    const names = (id: number) => (id === 7 ? 'Enterprise' : `#${id}`);
    expect(
      endpointSummary(
        { format: 'slack', events: ['account.visited'], event_versions: { 'account.visited': 2 }, filters: { segments: [7, 8], min_page_views: 3 } },
        names,
      ),
    ).toBe('Slack · account.visited v2 · filters: in Enterprise or #8, ≥ 3 page views this visit');
    expect(endpointSummary({ format: 'json', events: ['account.hot'], event_versions: {}, filters: {} }, names)).toBe('JSON webhook · account.hot v1');
  });
});
