/**
 * Page views on two server nodes sharing one real redis-server: each node counts into the shared visit
 * store, so the visitors report of either node sees every view, and an account's first view of the day
 * is first exactly once across nodes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendPageView } from '../testing/page-view.ts';
import { type RedisNodes, startRedisNodes } from '../testing/redis-nodes.ts';
import { IPS, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import type { RecordedPageView } from './recorder.ts';

let cluster: RedisNodes;
let nodes: TestServer[] = [];
let recorded: RecordedPageView[] = [];

beforeAll(async () => {
  cluster = await startRedisNodes(2);
  ({ nodes, recorded } = cluster);
}, 60_000);
afterAll(async () => cluster?.close());

describe('page views with SVC_REDIS_URL (two nodes, one Redis)', () => {
  it('count into the shared visit store: either node reports every view; first-of-day is first once', async () => {
    for (let i = 0; i < 6; i++) {
      const res = await sendPageView(nodes[i % 2].url, {
        path: i % 2 ? '/pricing' : '/',
        ip: i < 4 ? IPS.northwind : IPS.isp,
        session: `session-node-${i % 2}`,
      });
      expect(res.status).toBe(204);
    }
    await expect.poll(() => recorded.length, { timeout: 5000 }).toBe(6);
    expect(recorded.filter((v) => v.first_of_day_for_account)).toHaveLength(1);

    const today = new Date().toISOString().slice(0, 10);
    for (const node of nodes) {
      const res = await fetch(`${node.url}/admin/api/customers/acme/visits?from=${today}&to=${today}`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'user-agent': 'curl/8.5.0' },
      });
      const body = await res.json();
      expect(body.totals).toEqual({ page_views: 6, identified: 4, anonymous: 2, accounts: 1 });
      expect(body.accounts[0]).toMatchObject({
        company_id: '900001',
        page_views: 4,
        sessions: 2,
        top_pages: [
          { path: '/', page_views: 2 },
          { path: '/pricing', page_views: 2 },
        ],
      });
    }
    const sightings = await (
      await fetch(`${nodes[1].url}/admin/api/customers/acme/tag-sightings`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
    ).json();
    expect(sightings).toEqual([{ tag_id: 'acme-tag', origin: 'https://www.acme.test', last_seen_at: expect.any(String) }]);
  });
});
