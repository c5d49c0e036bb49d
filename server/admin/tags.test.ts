/** Web tags over the admin API: limits as tag fields, PATCH of any field, allowed-domain syntax, punycode. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const admin = (path: string, method = 'GET', body?: unknown) =>
  srv.request(`/admin/api${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: {
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      'user-agent': 'python-requests/2.31.0',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
  });
const identify = (tagId: string, origin: string) => srv.request(`/v3/company/details?tag=${tagId}`, { headers: { origin, 'user-agent': BROWSER_UA } });

describe('tag limits', () => {
  it('default to 6000/min per tag and 300/min per visitor, and can be set at creation', async () => {
    const plain = await (await admin('/tags', 'POST', { customer_id: 'acme', allowed_domains: ['www.acme.example'] })).json();
    expect(plain).toMatchObject({ rate_limit: 6000, visitor_rate_limit: 300, demo: false });
    const big = await admin('/tags', 'POST', {
      customer_id: 'acme',
      tag_id: 'acme-big',
      allowed_domains: ['big.acme.example'],
      rate_limit: 100_000,
      visitor_rate_limit: 5000,
    });
    expect(big.status).toBe(201);
    expect(await big.json()).toMatchObject({ tag_id: 'acme-big', rate_limit: 100_000, visitor_rate_limit: 5000 });
    expect(await (await admin('/tags/acme-big')).json()).toMatchObject({ rate_limit: 100_000, visitor_rate_limit: 5000 });
    for (const bad of [{ rate_limit: 0 }, { visitor_rate_limit: -1 }, { rate_limit: 1.5 }, { rate_limit: '100' }]) {
      expect((await admin('/tags', 'POST', { customer_id: 'acme', allowed_domains: ['x.acme.example'], ...bad })).status, JSON.stringify(bad)).toBe(422);
    }
  });

  it('are what the rate limiter enforces, and a PATCH raises them at once', async () => {
    await admin('/tags', 'POST', { customer_id: 'acme', tag_id: 'acme-small', allowed_domains: ['localhost'], visitor_rate_limit: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await identify('acme-small', 'http://localhost')).status);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await identify('acme-small', 'http://localhost');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);

    const patched = await admin('/tags/acme-small', 'PATCH', { visitor_rate_limit: 1000 });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ tag_id: 'acme-small', visitor_rate_limit: 1000, rate_limit: 6000, allowed_domains: ['localhost'] });
    expect((await identify('acme-small', 'http://localhost')).status).toBe(200);

    await admin('/tags/acme-small', 'PATCH', { rate_limit: 1 });
    // The per-tag ceiling counts every visitor: this minute's requests already passed 1.
    expect((await identify('acme-small', 'http://localhost')).status).toBe(429);
  });
});

describe('PATCH /admin/api/tags/:tagId', () => {
  it('changes only the fields given, 404 for an unknown tag, 422 for invalid fields', async () => {
    await admin('/tags', 'POST', {
      customer_id: 'acme',
      tag_id: 'acme-patch',
      allowed_domains: ['a.acme.example'],
      scores: true,
      settings: { min_confidence: 'High' },
    });
    const res = await admin('/tags/acme-patch', 'PATCH', { allowed_domains: ['b.acme.example', '*.acme.example'], segment_names: true });
    expect(await res.json()).toMatchObject({
      allowed_domains: ['b.acme.example', '*.acme.example'],
      scores: true,
      segment_names: true,
      settings: { min_confidence: 'High' },
      rate_limit: 6000,
    });
    expect((await admin('/tags/nope-nope', 'PATCH', { scores: false })).status).toBe(404);
    for (const bad of [{ allowed_domains: [] }, { tag_id: 'other' }, { customer_id: 'other' }, { settings: { min_confidence: 'Sure' } }, { scores: 'yes' }]) {
      expect((await admin('/tags/acme-patch', 'PATCH', bad)).status, JSON.stringify(bad)).toBe(422);
    }
    expect((await srv.store.getTag('acme-patch'))!.allowed_domains).toEqual(['b.acme.example', '*.acme.example']);
  });
});

describe('allowed domains', () => {
  it('are refused with 422 naming the entry when they are not a host, localhost, IPv4 or *.domain', async () => {
    for (const bad of ['*.com', '*', 'a.com, b.com', 'https://www.acme.example', 'www.acme.example/shop', 'www.acme.example:8443']) {
      for (const res of [
        await admin('/tags', 'POST', { customer_id: 'acme', allowed_domains: ['ok.acme.example', bad] }),
        await admin('/tags/acme-tag', 'PATCH', { allowed_domains: [bad] }),
        await admin('/tokens', 'POST', { customer_id: 'acme', api_group: 'identification', name: 'site', allowed_domains: [bad] }),
      ]) {
        expect(res.status, bad).toBe(422);
        expect((await res.json()).message).toContain(`"${bad}"`);
      }
    }
    expect((await srv.store.getTag('acme-tag'))!.allowed_domains).toEqual(['localhost', '*.acme.test']);
  });

  it('store international names in punycode, so the Origin a browser sends matches', async () => {
    const tag = await (
      await admin('/tags', 'POST', { customer_id: 'acme', tag_id: 'acme-idn', allowed_domains: ['bücher.example', '*.Bücher.example'] })
    ).json();
    expect(tag.allowed_domains).toEqual(['xn--bcher-kva.example', '*.xn--bcher-kva.example']);
    const res = await identify('acme-idn', 'https://xn--bcher-kva.example');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://xn--bcher-kva.example');
    expect((await identify('acme-idn', 'https://shop.xn--bcher-kva.example')).status).toBe(200);
    expect((await identify('acme-idn', 'https://buecher.example')).status).toBe(403);

    const token = await (
      await admin('/tokens', 'POST', { customer_id: 'acme', api_group: 'identification', name: 'idn', allowed_domains: ['bücher.example'] })
    ).json();
    expect(token.allowed_domains).toEqual(['xn--bcher-kva.example']);
  });
});
