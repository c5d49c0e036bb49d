import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DailyTotals } from '../../core/visit-records.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { hasIdentifiedVisit } from './routes.ts';

/** A customer as `customer create` makes it: no tags, segments, lists or webhooks. */
const NEWCO = { id: 'newco', name: 'NewCo', packages: ['platform'], identification_credits: 1000 };

describe.each(['sqlite', 'redis'] as const)('the onboarding checklist on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  let recorded = 0;

  const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    srv.request(`/admin/api${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        'user-agent': 'curl/8.5.0',
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  const done = async () => {
    const res = await admin('/customers/newco/onboarding');
    expect(res.status).toBe(200);
    const body = await res.json();
    return { ...Object.fromEntries(body.steps.map((s: { id: string; done: boolean }) => [s.id, s.done])), complete: body.complete };
  };

  async function pageView(ip: string): Promise<void> {
    const target = recorded + 1;
    const res = await srv.request(`/v1/events?tag=newco-tag`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'http://localhost:8000', 'user-agent': BROWSER_UA, 'x-forwarded-for': ip },
      body: JSON.stringify({ type: 'pageview', path: '/pricing', session: `session-${ip.replace(/\./g, '-')}` }),
    });
    expect(res.status).toBe(204);
    for (let i = 0; i < 500 && recorded < target; i++) await new Promise((r) => setTimeout(r, 10));
    expect(recorded).toBe(target);
  }

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: { SVC_TRUST_PROXY: 'loopback', ...(redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {}) },
      customers: [TEST_CUSTOMER],
    });
    srv.recorder.onPageView(() => void recorded++);
    expect((await admin('/customers', { method: 'POST', body: NEWCO })).status).toBe(201);
  });
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  it('a new customer has nothing done; each step ticks as the stores learn of it', async () => {
    expect(await done()).toEqual({ install: false, identified_visit: false, segment: false, webhook: false, complete: false });

    // A tag alone is not an install: the snippet must run on a site.
    expect((await admin('/tags', { method: 'POST', body: { customer_id: 'newco', tag_id: 'newco-tag', allowed_domains: ['localhost'] } })).status).toBe(201);
    expect(await done()).toMatchObject({ install: false, identified_visit: false });

    // An anonymous view installs the tag but identifies nobody.
    await pageView(IPS.isp);
    expect(await done()).toMatchObject({ install: true, identified_visit: false });
    await pageView(IPS.northwind);
    expect(await done()).toMatchObject({ install: true, identified_visit: true, segment: false });

    const segment = await admin('/customers/newco/segments', { method: 'POST', body: { name: 'Software', match: { industry: ['Software'] } } });
    expect(segment.status).toBe(201);
    expect(await done()).toMatchObject({ segment: true, webhook: false, complete: false });

    await srv.webhookStore.createEndpoint({
      customer_id: 'newco',
      url: 'http://127.0.0.1:9/hook',
      events: ['account.hot'],
      hot_paths: ['/pricing*'],
      description: '',
      secret: 'whsec_0123456789abcdef',
    });
    expect(await done()).toEqual({ install: true, identified_visit: true, segment: true, webhook: true, complete: true });
  });

  it("another customer's page views and webhooks tick nothing of this one", async () => {
    const res = await admin(`/customers/${TEST_CUSTOMER.id}/onboarding`);
    expect(res.status).toBe(200);
    const body = await res.json();
    // acme was seeded with segments; it has no webhook and its tag was never seen.
    expect(body.steps.map((s: { done: boolean }) => s.done)).toEqual([false, false, true, false]);
    expect(body.complete).toBe(false);
  });

  it("a user's checklist holds only the steps their role can do: a marketer's has no webhook step", async () => {
    const asRole = async (role: string) => {
      const invited = await admin('/customers/newco/invitations', { method: 'POST', body: { email: `${role}-${backend}@newco.test`, role } });
      expect(invited.status).toBe(201);
      const { token } = (await invited.json()) as { token: string };
      const accepted = await srv.request(`/auth/accept`, {
        method: 'POST',
        headers: { 'user-agent': BROWSER_UA, origin: srv.url, 'content-type': 'application/json' },
        body: JSON.stringify({ token, password: 'a long enough passphrase' }),
      });
      expect(accepted.status).toBe(204);
      const res = await srv.request(`/admin/api/customers/newco/onboarding`, {
        headers: { 'user-agent': BROWSER_UA, cookie: accepted.headers.get('set-cookie')!.split(';')[0]! },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { steps: { id: string; href: string }[]; complete: boolean };
    };
    const marketer = await asRole('marketer');
    expect(marketer.steps.map((s) => s.id)).toEqual(['install', 'identified_visit', 'segment']);
    expect(marketer.steps.some((s) => s.href.includes('page=webhooks'))).toBe(false);
    expect((await asRole('viewer')).steps.map((s) => s.id)).toEqual(['install', 'identified_visit']);
    expect((await asRole('admin')).steps.map((s) => s.id)).toEqual(['install', 'identified_visit', 'segment', 'webhook']);
  });

  it('a CRM connection that needs attention comes first for the owner and admin, with the provider’s message, until it is fixed', async () => {
    const crm = srv.crm.deps.crm;
    const at = new Date().toISOString();
    await crm.putConnection({
      record: {
        customer_id: 'newco',
        provider: 'hubspot',
        base_url: 'http://127.0.0.1:9',
        client_id: null,
        secret_prefix: 'pat-na',
        status: 'needs_attention',
        attention: 'The access token is expired or revoked (401)',
        mapping: {},
        create_missing: false,
        created_at: at,
        updated_at: at,
        last_run_at: null,
        last_full_at: null,
        config_hash: null,
      },
      secret: JSON.stringify({ access_token: 'pat-na1-0000' }),
    });
    const checklist = async (cookie?: string) => {
      const res = cookie
        ? await srv.request('/admin/api/customers/newco/onboarding', { headers: { 'user-agent': BROWSER_UA, cookie } })
        : await admin('/customers/newco/onboarding');
      expect(res.status).toBe(200);
      return (await res.json()) as { steps: { id: string; label: string; done: boolean; href: string }[]; complete: boolean };
    };
    const signIn = async (role: string) => {
      const invited = await admin('/customers/newco/invitations', { method: 'POST', body: { email: `crm-${role}-${backend}@newco.test`, role } });
      const { token } = (await invited.json()) as { token: string };
      const accepted = await srv.request('/auth/accept', {
        method: 'POST',
        headers: { 'user-agent': BROWSER_UA, origin: srv.url, 'content-type': 'application/json' },
        body: JSON.stringify({ token, password: 'a long enough passphrase' }),
      });
      expect(accepted.status).toBe(204);
      return accepted.headers.get('set-cookie')!.split(';')[0]!;
    };
    try {
      const operator = await checklist();
      expect(operator.steps[0]).toEqual({
        id: 'hubspot_attention',
        label: 'HubSpot needs attention: The access token is expired or revoked (401) — reconnect in Integrations',
        done: false,
        href: '/console/#customer=newco&page=integrations',
      });
      expect(operator.complete).toBe(false);
      expect((await checklist(await signIn('admin'))).steps.map((s) => s.id)).toEqual([
        'hubspot_attention',
        'install',
        'identified_visit',
        'segment',
        'webhook',
      ]);
      expect((await checklist(await signIn('owner'))).steps[0]!.id).toBe('hubspot_attention');
      expect((await checklist(await signIn('marketer'))).steps.map((s) => s.id)).toEqual(['install', 'identified_visit', 'segment']);

      // Reconnected (active again): the step is gone.
      await crm.updateConnection('newco', 'hubspot', { status: 'active', attention: null });
      expect((await checklist()).steps.map((s) => s.id)).toEqual(['install', 'identified_visit', 'segment', 'webhook']);
    } finally {
      await crm.deleteConnection('newco', 'hubspot');
    }
  });

  it('an unknown customer is 404, without a credential 401', async () => {
    const res = await admin('/customers/nobody/onboarding');
    expect(res.status).toBe(404);
    expect((await res.json()).message).toContain('unknown customer nobody');
    expect((await srv.request(`/admin/api/customers/newco/onboarding`)).status).toBe(401);
  });
});

describe('hasIdentifiedVisit', () => {
  const NOW = Date.parse('2026-11-25T12:00:00Z');
  /** A visit store answering from fixed identified counts per day, recording the ranges asked for. */
  const store = (identified: Record<string, number>) => {
    const asked: [string, string][] = [];
    return {
      asked,
      async dailyTotals(_c: string, from: string, to: string): Promise<DailyTotals[]> {
        asked.push([from, to]);
        const days: DailyTotals[] = [];
        for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
          const day = new Date(t).toISOString().slice(0, 10);
          days.push({ day, identified: identified[day] ?? 0, anonymous: 5 });
        }
        return days;
      },
    };
  };

  it('answers from the last week when it has one', async () => {
    const s = store({ '2026-11-24': 3 });
    expect(await hasIdentifiedVisit(s, 'c', NOW)).toBe(true);
    expect(s.asked).toEqual([['2026-11-19', '2026-11-25']]);
  });

  it('looks further back without reading a day twice, down to the retention', async () => {
    const s = store({ '2025-11-01': 1 });
    expect(await hasIdentifiedVisit(s, 'c', NOW)).toBe(true);
    expect(s.asked).toEqual([
      ['2026-11-19', '2026-11-25'],
      ['2026-09-27', '2026-11-18'],
      ['2025-10-21', '2026-09-26'],
    ]);
  });

  it('anonymous views alone are no identified visit', async () => {
    expect(await hasIdentifiedVisit(store({}), 'c', NOW)).toBe(false);
  });
});
