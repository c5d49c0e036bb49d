/**
 * Attempt results on their way to the outbox: those that end in the same event-loop turn are recorded in
 * one outbox step (WebhookStore.recordAttempts: one transaction, one script). With a fast receiver a step
 * per delivery was most of a delivery's cost; each attempt still waits for its own result to be recorded,
 * so its slot (and its lease) is held until then, as before.
 */
import type { AttemptRecord, AttemptResult, ClaimedDelivery, WebhookStore } from '../state/outbox/store.ts';

/** Attempt results recorded in one outbox step at most (a transaction, a script); the rest go in the next turn. */
export const RECORD_BATCH = 64;

export class AttemptRecorder {
  private readonly waiting: Array<{ record: AttemptRecord; resolve: () => void; reject: (e: unknown) => void }> = [];
  private timer: NodeJS.Immediate | null = null;

  constructor(
    private readonly store: WebhookStore,
    private readonly owner: string,
  ) {}

  /** Resolves once the result is recorded; rejects with the outbox's error (the lease then runs out and the delivery is tried again). */
  record(delivery: Pick<ClaimedDelivery, 'id' | 'webhook_id'>, result: AttemptResult): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ record: { delivery, result }, resolve, reject });
      this.timer ??= setImmediate(this.flush);
    });
  }

  private readonly flush = () => {
    this.timer = null;
    const batch = this.waiting.splice(0, RECORD_BATCH);
    if (this.waiting.length > 0) this.timer = setImmediate(this.flush);
    this.store
      .recordAttempts(
        batch.map((b) => b.record),
        this.owner,
      )
      .then(
        () => {
          for (const b of batch) b.resolve();
        },
        (e: unknown) => {
          for (const b of batch) b.reject(e);
        },
      );
  };
}
