/**
 * Keeping the access records' per-node cache exact on Redis: every change bumps `svc:auth:version` and
 * publishes it on `svc:auth`; nodes drop their cache on the message, and poll the version every second
 * (with the data epoch, in the same round trip) in case a message was missed, so a change reaches every
 * node within a second.
 */
import { publish, subscribe } from './connection.ts';
import { keys } from './keys.ts';
import type { RedisBackend } from './lifecycle.ts';

export class AuthVersion {
  constructor(private readonly b: RedisBackend) {}

  /** At open: listens for changes, then reads the version. */
  async start(): Promise<void> {
    const { b } = this;
    await subscribe(b.sub, keys.authChannel, (message) => {
      if (b.epoch.lost === null) b.auth.sync(Number(message));
    });
    b.auth.sync(Number((await b.client.get(keys.authVersion)) ?? 0));
  }

  async poll(): Promise<void> {
    const { b } = this;
    if (!b.client.isReady || b.hold !== null) return;
    try {
      // The epoch first, in the same round trip: a flushed Redis must not empty the cache before it is noticed.
      // On a cluster every primary's copy of the epoch too: a shard restarted empty is noticed within a second.
      const [epoch, version, shards] = await b.timed(Promise.all([b.client.get(keys.epoch), b.client.get(keys.authVersion), b.epoch.probeShards()]));
      if (b.epoch.judge(epoch, shards)) b.auth.sync(Number(version ?? 0));
    } catch {
      // Unreachable: cached records keep answering until Redis is back.
    }
  }

  /** Marks a change to access records: every node drops its cache (this one at once). */
  async bump(): Promise<void> {
    const { b } = this;
    const version = await b.client.incr(keys.authVersion);
    b.auth.sync(version);
    await publish(b.client, keys.authChannel, String(version));
  }
}
