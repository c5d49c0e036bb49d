/**
 * The raw page-view export on Redis streams across nodes: two server nodes on one real redis-server each
 * record views into the customer's one stream, and either node's export holds every view of both, in the
 * order they were recorded; a cursor one node gave resumes on the other.
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

const exportFrom = async (node: TestServer, query = '') => {
  const today = new Date().toISOString().slice(0, 10);
  const res = await fetch(`${node.url}/admin/api/customers/acme/events?from=${today}&to=${today}${query}`, {
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'accept-encoding': 'gzip' },
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return {
    text,
    lines:
      text === ''
        ? []
        : text
            .trimEnd()
            .split('\n')
            .map((l) => JSON.parse(l) as RecordedPageView & { cursor: string }),
  };
};

describe('the raw page-view export with SVC_REDIS_URL (two nodes, one Redis)', () => {
  it('streams every node’s views from either node, in the order recorded; a cursor of one node resumes on the other', async () => {
    for (let i = 0; i < 8; i++) {
      const res = await sendPageView(nodes[i % 2]!.url, {
        path: `/node-${i % 2}/page-${i}`,
        ip: i % 3 === 2 ? IPS.isp : IPS.northwind,
        session: `session-node-${i % 2}`,
      });
      expect(res.status).toBe(204);
      // One at a time: the order recorded is the order sent.
      await expect.poll(() => recorded.length, { timeout: 5000 }).toBe(i + 1);
    }
    const [a, b] = [await exportFrom(nodes[0]!), await exportFrom(nodes[1]!)];
    expect(a.text).toBe(b.text);
    expect(a.lines.map(({ cursor: _, ...view }) => view)).toEqual(recorded);
    expect(a.lines.map((l) => l.path)).toEqual(Array.from({ length: 8 }, (_, i) => `/node-${i % 2}/page-${i}`));
    expect(a.lines.filter((l) => l.first_of_day_for_account)).toHaveLength(1);

    const resumed = await exportFrom(nodes[1]!, `&cursor=${a.lines[2]!.cursor}`);
    expect(resumed.lines).toEqual(a.lines.slice(3));
  });
});
