/** The test helper that starts a real redis-server: finds it, says how to install it, stops and restarts it. */
import { createClient } from '@redis/client';
import { expect, it } from 'vitest';
import { findRedisServer, startRedisServer } from './redis-server.ts';

it('says how to install redis-server when it cannot find it', () => {
  expect(() => findRedisServer({ REDIS_SERVER: '/nonexistent/redis-server' })).toThrow(/apt-get install -y redis-server/);
});

it('starts on a free port with AOF, keeps acknowledged writes across a crash and a restart', async () => {
  const redis = await startRedisServer({ appendfsync: 'always' });
  try {
    const c = createClient({ url: redis.url });
    await c.connect();
    await c.set('k', 'v');
    expect(await c.configGet('appendonly')).toEqual({ appendonly: 'yes' });
    c.destroy();
    await redis.stop();
    await redis.start();
    const d = createClient({ url: redis.url });
    await d.connect();
    expect(await d.get('k')).toBe('v');
    await d.close();
  } finally {
    await redis.close();
  }
});
