/**
 * Server nodes sharing one real redis-server, as tests of the multi-node mode start them in process: each
 * node with its own outage journal, every page view any node records collected in `recorded`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedPageView } from '../visits/recorder.ts';
import { type RedisServer, startRedisServer } from './redis-server.ts';
import { startTestServer, type TestServer } from './test-server.ts';

export interface RedisNodes {
  redis: RedisServer;
  nodes: TestServer[];
  recorded: RecordedPageView[];
  close(): Promise<void>;
}

export async function startRedisNodes(count: number): Promise<RedisNodes> {
  const redis = await startRedisServer();
  const journal = mkdtempSync(join(tmpdir(), 'svc-nodes-journal-'));
  const nodes: TestServer[] = [];
  const recorded: RecordedPageView[] = [];
  for (let n = 0; n < count; n++) {
    const node = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback', SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: join(journal, `node-${n}`) } });
    node.recorder.onPageView((v) => void recorded.push(v));
    nodes.push(node);
  }
  return {
    redis,
    nodes,
    recorded,
    async close() {
      for (const n of nodes.splice(0)) await n.close();
      await redis.close();
      rmSync(journal, { recursive: true, force: true });
    },
  };
}
