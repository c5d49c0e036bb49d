/**
 * "Saving a segment makes it part of identification and the tag's answers within 1 s on every node", on a
 * real local cluster (redis-server, three `svc serve` processes, nginx): a segment saved through one
 * node's admin API, and a list edit that brings a company into an `in_list` segment, are polled for on
 * every node directly (not through nginx, so each node is asked), in token mode and tag mode, after each
 * node has cached the customer record without them: what makes them visible is the invalidation over
 * Redis pub/sub, not a cold cache. The largest delay is printed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPS, TEST_ADMIN_TOKEN } from '../server/testing/test-server.ts';
import { BROWSER_UA, startTestCluster, type TestCluster } from './testing/cluster-fixture.ts';

// Real processes on a shared, busy machine: generous time per test.
vi.setConfig({ testTimeout: 120_000 });

/** The issue's requirement. */
const WITHIN_MS = 1_000;
/** How long a target is polled before the test gives up on it (to report how late it was). */
const GIVE_UP_MS = 10_000;
const CUSTOMER = 'segprop';
const TAG = 'segprop-tag';
const ORIGIN = 'https://www.acme.test';

let c: TestCluster;
let token: string;

beforeAll(async () => {
  c = await startTestCluster({ nodes: 3, state: 'redis' });
  await c.customer({
    id: CUSTOMER,
    packages: ['platform'],
    identification_credits: 1_000_000,
    tags: [{ tag_id: TAG, allowed_domains: ['www.acme.test'], scores: false, segment_names: false, rate_limit: 1_000_000, visitor_rate_limit: 1_000_000 }],
  });
  token = await c.token(CUSTOMER, 'identification');
}, 300_000);
afterAll(async () => {
  await c?.close();
}, 60_000);

/** An admin API call to one node (Bearer operator token). */
async function adminOn(node: number, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${c.nodes[node].url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type Mode = 'token' | 'tag';

/** The segment ids one node answers for Northwind (company 900001) in a mode. */
async function segmentIds(node: number, mode: Mode): Promise<number[]> {
  const base = c.nodes[node].url;
  const res =
    mode === 'token'
      ? await fetch(`${base}/v3/company/details?ip=${IPS.northwind}`, { headers: { authorization: `Token ${token}`, 'user-agent': BROWSER_UA } })
      : // The node trusts loopback proxies (SVC_TRUST_PROXY=loopback): the visitor is the forwarded address, as behind nginx.
        await fetch(`${base}/v3/company/details?tag=${TAG}`, { headers: { origin: ORIGIN, 'user-agent': BROWSER_UA, 'x-forwarded-for': IPS.northwind } });
  const body = (await res.json()) as { company?: { company_id?: string }; segments?: { ids: number[] } };
  if (res.status !== 200) throw new Error(`node ${node} ${mode} mode: ${res.status} ${JSON.stringify(body)}`);
  return body.segments?.ids ?? [];
}

const TARGETS = (): { node: number; mode: Mode }[] => c.nodes.flatMap((_, node) => (['token', 'tag'] as const).map((mode) => ({ node, mode })));

/**
 * Runs `change` (a write through one node's admin API, answering the segment id to look for) and polls
 * every node in both modes until each answers that id; returns each target's delay after the change's
 * answer arrived.
 */
async function delaysUntilVisible(change: () => Promise<number>): Promise<{ target: string; ms: number }[]> {
  // Every node caches the customer record as it is before the change: the change must invalidate it.
  const before = await Promise.all(TARGETS().map((t) => segmentIds(t.node, t.mode)));
  const segmentId = await change();
  const saved = performance.now();
  for (const ids of before) expect(ids).not.toContain(segmentId);
  return Promise.all(
    TARGETS().map(async ({ node, mode }) => {
      for (;;) {
        const ids = await segmentIds(node, mode);
        const ms = performance.now() - saved;
        if (ids.includes(segmentId)) return { target: `node ${node} ${mode} mode`, ms };
        if (ms > GIVE_UP_MS) return { target: `node ${node} ${mode} mode`, ms: Number.POSITIVE_INFINITY };
        await new Promise((r) => setTimeout(r, 10));
      }
    }),
  );
}

function report(what: string, delays: { target: string; ms: number }[]): number {
  const max = Math.max(...delays.map((d) => d.ms));
  console.log(`${what}: visible on every node after at most ${max.toFixed(0)} ms (${delays.map((d) => `${d.target} ${d.ms.toFixed(0)} ms`).join(', ')})`);
  return max;
}

describe('segment changes reach every node within 1 s (3 nodes, Redis state)', () => {
  it('a segment saved through one node is in every node’s identification and tag answers within 1 s of the save', async () => {
    const delays = await delaysUntilVisible(async () => {
      const saved = await adminOn(0, 'POST', `/customers/${CUSTOMER}/segments`, { name: 'Software', match: { industry: ['Software'] } });
      expect(saved.status).toBe(201);
      return saved.body.id as number;
    });
    expect(report('segment save', delays)).toBeLessThanOrEqual(WITHIN_MS);
  });

  it('a list edit through one node brings its company into an in_list segment on every node within 1 s', async () => {
    const list = await adminOn(1, 'POST', `/customers/${CUSTOMER}/lists`, { name: 'Targets' });
    expect(list.status).toBe(201);
    const listId = list.body.id as string;
    const segment = await adminOn(1, 'POST', `/customers/${CUSTOMER}/segments`, { name: 'Targets list', match: { in_list: [listId] } });
    expect(segment.status).toBe(201);
    const segmentId = segment.body.id as number;
    // The empty list's segment may take up to the same second to reach every node: wait for that first,
    // so the polls below measure the list edit alone.
    await new Promise((r) => setTimeout(r, WITHIN_MS));
    const delays = await delaysUntilVisible(async () => {
      const edited = await adminOn(2, 'PUT', `/customers/${CUSTOMER}/lists/${listId}`, { company_ids: ['900001'] });
      expect(edited.status).toBe(200);
      return segmentId;
    });
    expect(report('list edit', delays)).toBeLessThanOrEqual(WITHIN_MS);
  });
});
