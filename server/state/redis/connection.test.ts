import { ClientOfflineError, createClient, ErrorReply, SocketClosedUnexpectedlyError } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { StoreUnavailableError } from '../errors.ts';
import { isCluster, neverSent, openRedis, retryTryAgain, seedUrls, shardUnreachable } from './connection.ts';

describe('Redis connection settings', () => {
  it('reads the seed nodes of a cluster URL, credentials and options on each', () => {
    expect(seedUrls('redis://10.0.1.11:6379')).toEqual(['redis://10.0.1.11:6379']);
    expect(seedUrls('redis://:s3cret@10.0.1.11:6379,10.0.1.12:6380,[::1]:6381')).toEqual([
      'redis://:s3cret@10.0.1.11:6379',
      'redis://:s3cret@10.0.1.12:6380',
      'redis://:s3cret@[::1]:6381',
    ]);
    expect(seedUrls('rediss://user:p%40ss@a:1,b:2?x=1')).toEqual(['rediss://user:p%40ss@a:1?x=1', 'rediss://user:p%40ss@b:2?x=1']);
  });

  it('takes several addresses only as the seed nodes of a cluster, and WAIT for up to 5 replicas', () => {
    expect(() => loadConfig({ SVC_REDIS_URL: 'redis://a:1,b:2' })).toThrow(/set SVC_REDIS_CLUSTER=1/);
    expect(loadConfig({ SVC_REDIS_URL: 'redis://a:1,b:2', SVC_REDIS_CLUSTER: '1', SVC_REDIS_WAIT: '1' })).toMatchObject({
      SVC_REDIS_CLUSTER: true,
      SVC_REDIS_WAIT: 1,
    });
    expect(loadConfig({ SVC_REDIS_URL: 'redis://a:1' })).toMatchObject({ SVC_REDIS_CLUSTER: false, SVC_REDIS_WAIT: 0 });
    expect(() => loadConfig({ SVC_REDIS_WAIT: '9' })).toThrow(/SVC_REDIS_WAIT/);
  });

  it('opens the cluster client only when asked', () => {
    const single = openRedis({ url: 'redis://127.0.0.1:1' });
    const cluster = openRedis({ url: 'redis://127.0.0.1:1,127.0.0.1:2', cluster: true });
    expect([isCluster(single), isCluster(cluster)]).toEqual([false, true]);
  });
});

describe('Redis Cluster errors', () => {
  it('sends a command again while its slot is half moved (TRYAGAIN), and only then', async () => {
    let calls = 0;
    await expect(
      retryTryAgain(async () => {
        if (++calls < 3) throw new ErrorReply('TRYAGAIN Multiple keys request during rehashing of slot');
        return 'ok';
      }),
    ).resolves.toBe('ok');
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      retryTryAgain(async () => {
        calls++;
        throw new ErrorReply('CROSSSLOT Keys in request do not hash to the same slot');
      }),
    ).rejects.toThrow(/CROSSSLOT/);
    expect(calls).toBe(1);
  });

  it('tells a shard out of reach from an error Redis answered', () => {
    expect(shardUnreachable(new Error('Socket closed unexpectedly'))).toBe(true);
    expect(shardUnreachable(new ErrorReply('CLUSTERDOWN The cluster is down'))).toBe(true);
    expect(shardUnreachable(new ErrorReply('ERR wrong number of arguments'))).toBe(false);
  });

  it('tells a command that never ran from one whose fate is unknown (a charge counted for a 503 otherwise)', async () => {
    const closed = await createClient({ url: 'redis://127.0.0.1:1', disableOfflineQueue: true })
      .get('k')
      .catch((e: unknown) => e);
    for (const e of [closed, new ClientOfflineError(), new ErrorReply('MOVED 3999 127.0.0.1:7002'), new ErrorReply('CLUSTERDOWN Hash slot not served')]) {
      expect(neverSent(e)).toBe(true);
    }
    // Written, then the connection lost or the deadline passed: it may run (or have run).
    for (const e of [
      new SocketClosedUnexpectedlyError(),
      new StoreUnavailableError('Redis did not answer within 600 ms'),
      new ErrorReply('ERR user_script:1: …'),
    ]) {
      expect(neverSent(e)).toBe(false);
    }
  });
});
