/**
 * Every node keeps the CRM schedule: at each tick it looks at every connection and starts the runs that
 * are due — an active connection whose last run started SVC_CRM_SYNC_MINUTES ago or more, or whose last
 * run is still marked running with its lease free (its node died: the run is finished from what is
 * pending). The connection's lease (state store) makes one node win; the others find it held and move on.
 * Runs go one at a time per node, so a node never floods a CRM with its customers' runs at once.
 */
import type { CrmConnectionRecord } from '../../core/crm-records.ts';
import { SyncBusyError, type SyncDeps, startSync } from './sync.ts';

export interface CrmSchedule {
  syncMinutes: number;
  /** How often the schedule is looked at (default: a minute, or the sync interval when shorter). */
  tickMs?: number;
}

export class CrmScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: SyncDeps,
    private readonly schedule: CrmSchedule,
  ) {}

  start(): void {
    const tick = this.schedule.tickMs ?? Math.min(60_000, this.schedule.syncMinutes * 60_000);
    this.timer = setInterval(() => void this.tick(), tick);
    this.timer.unref();
  }

  /** Stops ticking and waits for a run under way on this node to reach its end. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.halt.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One look at the schedule (tests call it); a tick while the last one runs joins it. */
  tick(): Promise<void> {
    this.running ??= this.sweep().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async due(conn: CrmConnectionRecord, now: number): Promise<boolean> {
    if (conn.status !== 'active') return false;
    if (conn.last_run_at === null || now - Date.parse(conn.last_run_at) >= this.schedule.syncMinutes * 60_000) return true;
    const [last] = await this.deps.crm.listRuns(conn.customer_id, conn.provider, 1);
    return last?.status === 'running';
  }

  private async sweep(): Promise<void> {
    let connections: CrmConnectionRecord[];
    try {
      connections = await this.deps.crm.allConnections();
    } catch (e) {
      this.deps.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'crm schedule: connections not read');
      return;
    }
    for (const conn of connections) {
      if (this.stopped) return;
      try {
        if (!(await this.due(conn, this.deps.now()))) continue;
        const { done } = await startSync(this.deps, conn.customer_id, conn.provider, 'incremental');
        await done;
      } catch (e) {
        if (e instanceof SyncBusyError) continue;
        this.deps.log.warn(
          { customer_id: conn.customer_id, provider: conn.provider, err: e instanceof Error ? e.message : String(e) },
          'crm scheduled run not started',
        );
      }
    }
  }
}
