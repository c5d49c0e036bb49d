/**
 * One redis-server for a benchmark, configured as deploy/redis.conf (AOF, `appendfsync always`), on a free
 * port of 127.0.0.1 with its files in `dir`: what `nodes` and `webhooks` put a Redis node on.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REDIS_CONF } from '../deploy/local-cluster.ts';
import { freePort, ManagedProcess, redisPing } from '../deploy/processes.ts';

export async function startRedis(dir: string): Promise<{ url: string; process: ManagedProcess }> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const p = new ManagedProcess({
    name: 'redis',
    command: 'redis-server',
    args: [REDIS_CONF, '--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    logFile: join(dir, 'redis.log'),
  });
  p.start();
  await p.waitUntil('PONG', () => redisPing(port));
  return { url: `redis://127.0.0.1:${port}`, process: p };
}
