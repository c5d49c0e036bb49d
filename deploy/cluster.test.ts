/**
 * A real local cluster (deploy/local-cluster.ts: redis-server, three `svc serve` processes, nginx on a
 * random port, all in a temp folder) driven the way clients use it, through nginx: credits and rate
 * limits stay exact across nodes, re-exports are free across nodes, the visitor's address survives the
 * hop, and a node killed mid-load costs neither an answer nor a credit. One cluster for the whole file.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPS } from '../server/testing/test-server.ts';
import { awayFromWindowEdge, BROWSER_UA, getFrom, LOOPBACK_VISITOR, lookup, startTestCluster, type TestCluster } from './testing/cluster-fixture.ts';

// Real processes on a shared, busy machine: generous time per test.
vi.setConfig({ testTimeout: 180_000 });

const STATE = 'redis' as const;
let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster({ nodes: 3, state: STATE });
}, 300_000);
afterAll(async () => {
  await c?.close();
}, 60_000);

/** Which nodes answered, from nginx's access log (`upstream=127.0.0.1:port`). */
function nodesInLog(lines: string[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const line of lines) {
    const m = /upstream=([^ ]+(?:, [^ ]+)*) upstream_status/.exec(line);
    const last = m?.[1].split(', ').at(-1);
    const port = Number(last?.split(':')[1]);
    if (port) counts.set(port, (counts.get(port) ?? 0) + 1);
  }
  return counts;
}

describe(`local cluster: 3 nodes behind nginx (${STATE} state)`, () => {
  it('500 concurrent Match lookups against a quota of 50: exactly 50 answers, 450 × 402, spread over every node', async () => {
    await c.customer({ id: 'quota50', packages: ['platform'], identification_credits: 50 });
    const token = await c.token('quota50', 'identification');
    const before = c.accessLog().length;
    const results = await Promise.all(Array.from({ length: 500 }, () => lookup(c.url, token, IPS.northwind)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 402)).toHaveLength(450);
    expect(results.filter((r) => r.status === 200).every((r) => r.match === 'Match')).toBe(true);
    expect(await c.used('quota50')).toMatchObject({ identification: 50 });
    const served = nodesInLog(c.accessLog().slice(before));
    expect([...served.keys()].sort()).toEqual(c.nodes.map((n) => n.port).sort());
  });

  it("a token's rate limit holds across nodes: exactly the limit passes in one window", async () => {
    await c.customer({ id: 'limited', packages: ['platform'], identification_credits: 1000 });
    const token = await c.token('limited', 'identification', 40);
    await awayFromWindowEdge();
    // No Match answers are free: only the limit decides.
    const results = await Promise.all(Array.from({ length: 120 }, () => lookup(c.url, token, IPS.nowhere)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(40);
    expect(statuses.filter((s) => s === 429)).toHaveLength(80);
  });

  it('a re-export is free across nodes, even at zero balance', async () => {
    await c.customer({ id: 'exporter', packages: ['platform'], enrichment_credits: 1 });
    const token = await c.token('exporter', 'company-firmographics');
    const enrich = () =>
      fetch(`${c.url}/v1/enrichment/company`, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'user-agent': 'curl/8.5.0', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=jane.doe%40northwind.example',
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { company?: { companyId?: string } } }));
    const first = await enrich();
    expect(first.status).toBe(200);
    expect(first.body.company?.companyId).toBe('900001');
    // Six more, one after another: round robin puts them on every node.
    const again = [];
    for (let i = 0; i < 6; i++) again.push(await enrich());
    expect(again.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await c.used('exporter')).toMatchObject({ enrichment: 1 });
  });

  it("the visitor's address survives the hop through nginx, and a visitor cannot claim another", async () => {
    await c.customer({
      id: 'tagged',
      packages: ['platform'],
      identification_credits: 10,
      tags: [{ tag_id: 'cluster-tag', allowed_domains: ['www.acme.test'], scores: false, segment_names: false }],
    });
    const headers = { origin: 'https://www.acme.test', 'user-agent': BROWSER_UA };
    const url = `${c.url}/v3/company/details?tag=cluster-tag`;
    const visitor = await getFrom(LOOPBACK_VISITOR, url, headers);
    expect(visitor.status).toBe(200);
    expect(JSON.parse(visitor.body).company.company_match).toBe('Match');
    // A forged X-Forwarded-For is replaced by nginx with the real peer (127.0.0.1: no company).
    const forged = await getFrom('127.0.0.1', url, { ...headers, 'x-forwarded-for': IPS.northwind });
    expect(JSON.parse(forged.body).company.company_match).toBe('No Match');
    expect(await c.used('tagged')).toMatchObject({ identification: 1 });
  });

  it("nginx's retry of a request one node already answered (same X-Request-Id, another node) is not charged again", async () => {
    await c.customer({ id: 'retried', packages: ['platform'], identification_credits: 10 });
    const token = await c.token('retried', 'identification');
    // What nginx sends to the next node after the first died having charged: the same request id.
    const attempt = (node: number, id: string) =>
      fetch(`${c.nodes[node].url}/v3/company/details?ip=${IPS.northwind}`, {
        headers: { authorization: `Token ${token}`, 'user-agent': BROWSER_UA, 'x-request-id': id },
      });
    const statuses = [];
    for (const [node, id] of [
      [0, 'a'.repeat(32)],
      [1, 'a'.repeat(32)],
      [2, 'a'.repeat(32)],
      [2, 'b'.repeat(32)],
    ] as const)
      statuses.push((await attempt(node, id)).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(await c.used('retried')).toMatchObject({ identification: 2 });
  });

  it('a node killed mid-load: nginx sends new requests to the others and credits stay exact', async () => {
    await c.customer({ id: 'steady', packages: ['platform'], identification_credits: 100_000 });
    const token = await c.token('steady', 'identification');
    const victim = c.nodes[1];
    const total = 600;
    let sent = 0;
    const statuses: number[] = [];
    let killedAt = -1;
    const worker = async () => {
      while (sent < total) {
        sent++;
        if (sent === 200) {
          killedAt = statuses.length;
          victim.process.killNow('SIGKILL');
        }
        statuses.push((await lookup(c.url, token, IPS.northwind)).status);
      }
    };
    const before = c.accessLog().length;
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(killedAt).toBeGreaterThan(0);
    expect(victim.process.running).toBe(false);
    // Requests the dead node had in flight were retried elsewhere: every client got its answer.
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(statuses).toHaveLength(total);
    // … and was charged once: the used credits are exactly the answers the clients saw.
    expect(await c.used('steady')).toMatchObject({ identification: total });
    // The last requests were all answered by the surviving nodes.
    const tail = nodesInLog(c.accessLog().slice(before).slice(-100));
    expect(tail.has(victim.port)).toBe(false);
    expect(tail.size).toBe(2);
  });
});
