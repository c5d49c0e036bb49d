import { describe, expect, it, vi } from 'vitest';
import { detailsUrl, fetchDetails, testIp } from './request.ts';
import { matched } from '../test/fixtures.ts';

describe('testIp', () => {
  it.each([
    ['?svc_test_ip=198.51.100.7', '198.51.100.7'],
    ['?a=1&svc_test_ip=203.0.113.5&b=2', '203.0.113.5'],
    ['?svc_test_ip=', ''],
    ['?other=1', ''],
    ['', ''],
    ['?svc_test_ip=1.2.3.4+', '1.2.3.4 '],
  ])('%j → %j', (search, want) => expect(testIp(search)).toBe(want));

  it('never throws on a malformed query', () => {
    expect(typeof testIp('?svc_test_ip=%E0%A4%A')).toBe('string');
  });
});

describe('detailsUrl', () => {
  it('builds the one request', () => {
    expect(detailsUrl('https://svc.example.com', 'demo-web-tag')).toBe(
      'https://svc.example.com/v3/company/details?tag=demo-web-tag',
    );
    expect(detailsUrl('https://svc.example.com/', 'demo-web-tag', '198.51.100.7')).toBe(
      'https://svc.example.com/v3/company/details?tag=demo-web-tag&test_ip=198.51.100.7',
    );
    expect(detailsUrl('http://localhost:8080', 'a b&c', '1.2.3.4&x=y')).toBe(
      'http://localhost:8080/v3/company/details?tag=a%20b%26c&test_ip=1.2.3.4%26x%3Dy',
    );
  });
});

const respond = (status: number, body: unknown) =>
  vi.fn(async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status }));

describe('fetchDetails', () => {
  it('sends a simple request: GET, no custom headers, no credentials', async () => {
    const f = respond(200, matched());
    await expect(fetchDetails('https://svc.example.com/v3/company/details?tag=t', f)).resolves.toEqual(matched());
    expect(f).toHaveBeenCalledTimes(1);
    expect(f.mock.calls[0]).toEqual(['https://svc.example.com/v3/company/details?tag=t', { credentials: 'omit' }]);
  });

  it('rejects with the status and the server message', async () => {
    await expect(fetchDetails('u', respond(403, { status: 'error', message: 'origin not allowed' }))).rejects.toEqual({
      status: 403,
      message: 'origin not allowed',
    });
    await expect(fetchDetails('u', respond(502, '<html>bad gateway</html>'))).rejects.toEqual({
      status: 502,
      message: 'HTTP 502',
    });
    await expect(fetchDetails('u', respond(200, '{"broken'))).rejects.toEqual({ status: 200, message: 'HTTP 200' });
    await expect(fetchDetails('u', respond(200, { hello: 1 }))).rejects.toMatchObject({ status: 200 });
  });

  it('rejects a network error with status 0', async () => {
    const f = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(fetchDetails('u', f)).rejects.toEqual({ status: 0, message: 'Failed to fetch' });
  });
});
