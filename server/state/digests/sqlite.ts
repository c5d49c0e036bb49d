/**
 * The digest store in the SQLite state file (tables from sqlite/schema.ts step 15), on the process's one
 * connection. A claim is one IMMEDIATE transaction (read, decide with port.ts decideClaim, write), so
 * processes sharing the file never both take it; the scheduler's writes go in the background lane (it
 * outwaits a CLI's write), a user's settings in the request lane.
 */
import type { DigestSettings } from '../../../core/digest-records.ts';
import { holdStateDb, type SqliteStateDb } from '../sqlite/db.ts';
import { TRANSFER_PAGE } from '../transfer/import.ts';
import type { DigestEntry } from '../transfer/transfer.ts';
import { CLAIMS_PRUNED_PER_STEP, type DigestPort, decideClaim, doneClaim, finishedClaim } from './port.ts';
import { DigestService } from './service.ts';
import type { ClaimFinish, ClaimOutcome, ClaimRequest, DigestClaim, StoredDigestSettings } from './store.ts';

type Row = Record<string, unknown>;

const settingsOf = (r: Row): StoredDigestSettings => ({
  customer_id: r.customer_id as string,
  user_id: r.user_id as string,
  settings: JSON.parse(r.settings as string) as DigestSettings,
  updated_at: r.updated_at as string,
});

const claimOf = (r: Row): DigestClaim => ({
  customer_id: r.customer_id as string,
  user_id: r.user_id as string,
  period: r.period as string,
  status: r.status as DigestClaim['status'],
  owner: r.owner as string,
  until_ms: r.until_ms as number,
  attempts: r.attempts as number,
  next_ms: r.next_ms as number,
  at_ms: r.at_ms as number,
  error: r.error as string,
  keep_until_ms: r.keep_until_ms as number,
});

const PUT_CLAIM = `INSERT OR REPLACE INTO digest_claims
  (customer_id, user_id, period, status, owner, until_ms, attempts, next_ms, at_ms, error, keep_until_ms)
  VALUES (@customer_id, @user_id, @period, @status, @owner, @until_ms, @attempts, @next_ms, @at_ms, @error, @keep_until_ms)`;
const PUT_SETTINGS = `INSERT OR REPLACE INTO digest_settings (customer_id, user_id, settings, updated_at) VALUES (@c, @u, @settings, @at)`;
const WHERE_CLAIM = 'customer_id = ? AND user_id = ? AND period = ?';

export class SqliteDigestStorage implements DigestPort {
  private readonly sqlite: SqliteStateDb;
  private closed = false;

  constructor(source: string | SqliteStateDb) {
    this.sqlite = holdStateDb(source);
  }

  private sql(source: string) {
    return this.sqlite.sql(source);
  }

  private claimRow(c: string, u: string, p: string): DigestClaim | null {
    const row = this.sql(`SELECT * FROM digest_claims WHERE ${WHERE_CLAIM}`).get(c, u, p) as Row | undefined;
    return row === undefined ? null : claimOf(row);
  }

  async getSettings(c: string, u: string): Promise<StoredDigestSettings | null> {
    const row = this.sqlite.io(() => this.sql('SELECT * FROM digest_settings WHERE customer_id = ? AND user_id = ?').get(c, u)) as Row | undefined;
    return row === undefined ? null : settingsOf(row);
  }

  async putSettings(s: StoredDigestSettings): Promise<void> {
    await this.sqlite.write(() => this.sql(PUT_SETTINGS).run({ c: s.customer_id, u: s.user_id, settings: JSON.stringify(s.settings), at: s.updated_at }));
  }

  async deleteSettings(c: string, u: string): Promise<boolean> {
    return (await this.sqlite.write(() => this.sql('DELETE FROM digest_settings WHERE customer_id = ? AND user_id = ?').run(c, u).changes)) > 0;
  }

  async allSettings(): Promise<StoredDigestSettings[]> {
    return (this.sqlite.io(() => this.sql('SELECT * FROM digest_settings').all()) as Row[]).map(settingsOf);
  }

  claim(r: ClaimRequest): Promise<ClaimOutcome> {
    const step = () => {
      this.sql(
        `DELETE FROM digest_claims WHERE (customer_id, user_id, period) IN (
           SELECT customer_id, user_id, period FROM digest_claims WHERE keep_until_ms < ? LIMIT ?)`,
      ).run(r.nowMs, CLAIMS_PRUNED_PER_STEP);
      const { outcome, next } = decideClaim(this.claimRow(r.customer_id, r.user_id, r.period), r);
      if (next !== null) this.sql(PUT_CLAIM).run(next);
      return outcome;
    };
    return this.sqlite.write(() => this.sqlite.db.transaction(step).immediate(), 'background');
  }

  finish(c: string, u: string, p: string, owner: string, atMs: number, end: ClaimFinish, error: string): Promise<boolean> {
    const step = () => {
      const next = finishedClaim(this.claimRow(c, u, p), owner, atMs, end, error);
      if (next !== null) this.sql(PUT_CLAIM).run(next);
      return next !== null;
    };
    return this.sqlite.write(() => this.sqlite.db.transaction(step).immediate(), 'background');
  }

  async getClaim(c: string, u: string, p: string): Promise<DigestClaim | null> {
    return this.sqlite.io(() => this.claimRow(c, u, p));
  }

  async *exportEntries(): AsyncIterable<DigestEntry> {
    for (const s of await this.allSettings()) yield { type: 'digest_settings', ...s };
    // Keyset pages: a consumer that stops reading holds one page.
    let after = ['', '', ''];
    for (;;) {
      const rows = this.sqlite.io(() =>
        this.sql(
          `SELECT * FROM digest_claims WHERE status <> 'pending' AND (customer_id, user_id, period) > (?, ?, ?)
           ORDER BY customer_id, user_id, period LIMIT ?`,
        ).all(...after, TRANSFER_PAGE),
      ) as Row[];
      for (const row of rows) {
        const c = claimOf(row);
        yield {
          type: 'digest_done',
          customer_id: c.customer_id,
          user_id: c.user_id,
          period: c.period,
          status: c.status as 'sent' | 'empty' | 'failed',
          attempts: c.attempts,
          at_ms: c.at_ms,
          keep_until_ms: c.keep_until_ms,
        };
      }
      if (rows.length < TRANSFER_PAGE) return;
      const last = rows.at(-1)!;
      after = [last.customer_id as string, last.user_id as string, last.period as string];
    }
  }

  async isEmpty(): Promise<boolean> {
    return this.sqlite.io(() => this.sql('SELECT EXISTS (SELECT 1 FROM digest_settings) OR EXISTS (SELECT 1 FROM digest_claims)').pluck().get()) === 0;
  }

  async importPage(entries: DigestEntry[]): Promise<void> {
    const page = this.sqlite.db.transaction(() => {
      for (const e of entries) {
        if (e.type === 'digest_settings') {
          this.sql(PUT_SETTINGS).run({ c: e.customer_id, u: e.user_id, settings: JSON.stringify(e.settings), at: e.updated_at });
        } else {
          this.sql(PUT_CLAIM).run(doneClaim(e));
        }
      }
    });
    await this.sqlite.write(() => page.immediate(), 'background');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}

/** The digest store on SQLite: the rules (service.ts) over this storage. */
export class SqliteDigestStore extends DigestService {
  constructor(source: string | SqliteStateDb) {
    super(new SqliteDigestStorage(source));
  }
}
