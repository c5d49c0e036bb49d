/**
 * SVC_REDIS_WAIT: the charges just written are on `replicas` replicas before their answers go out, so a
 * failover (the replica promoted) keeps them. WAIT holds the connection (every command behind it waits
 * too), so it is short (WAIT_TIMEOUT_MS), and once a replica failed to acknowledge in time — none left
 * after a failover, a replica resyncing — charges are answered without WAIT for WAIT_BACKOFF_MS (logged):
 * the charge is on the primary; only a second failure in that window could lose it.
 */
import { waitForReplicas } from './connection.ts';
import type { RedisBackend } from './lifecycle.ts';

/** How long WAIT may hold a connection: at most this, and a quarter of the command deadline. */
const WAIT_TIMEOUT_MS = 100;
/** After a WAIT a replica did not acknowledge in time, charges go without WAIT this long. */
const WAIT_BACKOFF_MS = 1_000;

export class ReplicaWait {
  private shortLogged = false;
  /** Until when charges are answered without WAIT (a replica did not acknowledge in time). */
  private skipUntil = 0;

  constructor(
    private readonly b: RedisBackend,
    /** 0: asynchronous replication, no WAIT. */
    readonly replicas: number,
  ) {}

  /**
   * After a write to `key`'s shard: waits for the replicas (or, backing off, does not). Throws when WAIT
   * itself fails (its connection lost, no answer by the deadline: the primary may be going down with
   * writes no replica has), after backing off as for a WAIT no replica acknowledged.
   */
  async replicated(key: string): Promise<void> {
    if (Date.now() < this.skipUntil) return;
    const timeout = Math.min(WAIT_TIMEOUT_MS, Math.floor(this.b.commandTimeoutMs / 4));
    let acked = 0;
    let failed: unknown = null;
    try {
      acked = await this.b.timed(waitForReplicas(this.b.untimed, key, this.replicas, timeout));
    } catch (e) {
      failed = e;
    }
    if (acked < this.replicas) {
      this.skipUntil = Date.now() + WAIT_BACKOFF_MS;
      if (!this.shortLogged) {
        this.shortLogged = true;
        this.b.log(
          `WAIT ${this.replicas}: only ${acked} replica(s) acknowledged within ${timeout} ms; charges are answered without WAIT for ${WAIT_BACKOFF_MS} ms at a time until replicas keep up (they may be lost in a failover meanwhile)`,
        );
      }
    } else if (this.shortLogged) {
      this.shortLogged = false;
      this.b.log(`WAIT ${this.replicas}: replicas acknowledge again`, 'info');
    }
    if (failed !== null) throw failed;
  }
}
