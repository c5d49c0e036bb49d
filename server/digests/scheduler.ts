/**
 * Every node (and every worker of `serve --workers`) keeps the digest schedule: each tick looks at every
 * user's settings and sends the digests whose local hour has come (service.ts `sweep`). Which node sends a
 * digest is decided by its claim in the state store, not here: all may look, one sends. Sends go one at a
 * time per node; a tick while the last one runs joins it.
 */
import type { Digests } from './service.ts';

/** How often the schedule is looked at: a digest goes out within a minute of its hour. */
export const DIGEST_TICK_MS = 60_000;

export class DigestScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly digests: Digests,
    private readonly tickMs = DIGEST_TICK_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One look (tests call it with their clock set). */
  tick(): Promise<void> {
    this.running ??= this.digests
      .sweep(() => this.stopped)
      .then(
        () => {},
        (e) => this.digests.deps.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'digest schedule: settings not read'),
      )
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}
