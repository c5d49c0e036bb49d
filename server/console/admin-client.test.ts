import { describe, expect, it } from 'vitest';
import { AdminApiError, adminClient, type Fetch, onUnauthorized } from './admin-client.ts';

interface Call {
  url: string;
  init: RequestInit;
}

function fakeFetch(answer: (call: Call) => Response): { fetch: Fetch; calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    fetch: async (url, init = {}) => {
      const call = { url, init };
      calls.push(call);
      return answer(call);
    },
  };
}
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const headers = (c: Call) => c.init.headers as Record<string, string>;

describe('adminClient', () => {
  it('sends the bearer token, JSON bodies on writes, and no cookies', async () => {
    const f = fakeFetch(() => json(201, { id: 'tok_1', token: 'x'.repeat(40) }));
    const api = adminClient('admin-secret', f.fetch);
    await api.createToken({ customer_id: 'demo', api_group: 'identification', name: 'web' });
    await api.setTokenActive('tok_1', false);
    await api.setTokenActive('tok_1', true);
    await api.rotateToken('tok_1');
    expect(f.calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'POST /admin/api/tokens',
      'POST /admin/api/tokens/tok_1/deactivate',
      'POST /admin/api/tokens/tok_1/activate',
      'POST /admin/api/tokens/tok_1/rotate',
    ]);
    for (const c of f.calls) {
      expect(headers(c)).toMatchObject({ authorization: 'Bearer admin-secret', 'content-type': 'application/json' });
      expect(c.init.credentials).toBe('omit');
    }
    expect(JSON.parse(f.calls[0].init.body as string)).toEqual({ customer_id: 'demo', api_group: 'identification', name: 'web' });
    expect(f.calls[1].init.body).toBe('{}');
  });

  it('escapes ids in paths and reads lists with GET', async () => {
    const f = fakeFetch(() => json(200, []));
    const api = adminClient('t', f.fetch);
    await api.tokens('a b/c');
    await api.credits('demo');
    await api.customers();
    expect(f.calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'GET /admin/api/tokens?customer=a%20b%2Fc',
      'GET /admin/api/customers/demo/credits',
      'GET /admin/api/customers',
    ]);
    expect(headers(f.calls[0])['content-type']).toBeUndefined();
  });

  it('answers undefined for a 204 delete', async () => {
    const f = fakeFetch(() => new Response(null, { status: 204 }));
    await expect(adminClient('t', f.fetch).deleteToken('tok_1')).resolves.toBeUndefined();
    expect(f.calls[0].init.method).toBe('DELETE');
  });

  it("turns error answers into AdminApiError with the server's message", async () => {
    const api = adminClient(
      't',
      fakeFetch(() => json(403, { status: 'error', message: 'customer basic has no package that covers the people-search API group' })).fetch,
    );
    await expect(api.customers()).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/no package/) });
    const html = adminClient('t', fakeFetch(() => new Response('<h1>Bad gateway</h1>', { status: 502, statusText: 'Bad Gateway' })).fetch);
    await expect(html.customers()).rejects.toMatchObject({ status: 502, message: 'the server answered 502 Bad Gateway' });
    const down = adminClient('t', async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(down.customers()).rejects.toMatchObject({ status: 0, message: 'cannot reach the server: Failed to fetch' });
  });

  it('onUnauthorized reports a 401 with its message and still rejects; other errors pass through', async () => {
    const seen: string[] = [];
    const api401 = onUnauthorized(adminClient('t', fakeFetch(() => json(401, { status: 'error', message: 'admin API: send a token' })).fetch), (m) =>
      seen.push(m),
    );
    await expect(api401.tokens('demo')).rejects.toBeInstanceOf(AdminApiError);
    expect(seen).toEqual(['admin API: send a token']);
    const api500 = onUnauthorized(adminClient('t', fakeFetch(() => json(500, { status: 'error', message: 'internal server error' })).fetch), (m) =>
      seen.push(m),
    );
    await expect(api500.tokens('demo')).rejects.toMatchObject({ status: 500 });
    expect(seen).toHaveLength(1);
  });
});
