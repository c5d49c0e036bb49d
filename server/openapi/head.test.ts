/**
 * Every GET route answers HEAD (server/http/router.ts), so the served document lists a HEAD beside every
 * GET, without a body; and each HEAD, asked of this server, answers GET's status with no body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

type Json = Record<string, any>;
let srv: TestServer;
let doc: Json;

beforeAll(async () => {
  srv = await startTestServer({ env: { SVC_DEMO: '1' } });
  doc = await (await fetch(`${srv.url}/openapi.json`)).json();
});
afterAll(() => srv?.close());

const getPaths = () => Object.entries(doc.paths as Json).filter(([, item]) => item.get);

describe('the served document', () => {
  it('lists HEAD for every GET path, with GET’s statuses (bar 402: a HEAD is never charged) and no body', () => {
    expect(getPaths().length).toBeGreaterThan(40);
    for (const [path, item] of getPaths()) {
      expect(item.head, `HEAD ${path}`).toBeDefined();
      const statuses = Object.keys(item.get.responses).filter((s) => s !== '402');
      expect(Object.keys(item.head.responses).sort(), `HEAD ${path}`).toEqual(expect.arrayContaining(statuses));
      for (const [status, response] of Object.entries(item.head.responses as Json)) {
        expect(response.content, `HEAD ${path} ${status} has a body`).toBeUndefined();
        expect(response.description, `HEAD ${path} ${status}`).toBeTruthy();
      }
      expect(item.head.operationId).not.toBe(item.get.operationId);
    }
  });
});

/** A concrete URL of a document path: the fixture's customer and tag, any value elsewhere. */
function urlOf(path: string): string {
  const values: Record<string, string> = { id: 'acme', customerId: 'acme', tagId: 'acme-tag', file: 'acme-tag.js', event: 'account.visited' };
  return path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'x');
}

describe('HEAD of every GET path of this server', () => {
  it('answers the status GET answers, without a body', async () => {
    const failures: string[] = [];
    for (const [path, item] of getPaths()) {
      const url = srv.url + urlOf(path);
      // The operator's credential where the route takes it; a token route answers both methods 401 alike.
      const init = { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'user-agent': BROWSER_UA }, redirect: 'manual' as const };
      const get = await fetch(url, init);
      await get.arrayBuffer();
      const head = await fetch(url, { ...init, method: 'HEAD' });
      const body = await head.text();
      const where = `HEAD ${urlOf(path)}`;
      if (head.status !== get.status) failures.push(`${where}: ${head.status}, GET ${get.status}`);
      if (body !== '') failures.push(`${where}: a body of ${body.length} characters`);
      if (item.get.responses[String(get.status)] && !item.head.responses[String(head.status)]) failures.push(`${where}: ${head.status} is not in the document`);
    }
    expect(failures).toEqual([]);
  });
});
