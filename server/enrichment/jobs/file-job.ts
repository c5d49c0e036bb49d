/**
 * The file job of bulk enrichment, shared by `svc enrich` (server/cli/enrich-job.ts) and the console upload
 * (./runner.ts): a CSV of emails or domains enriched row by row as `POST /v3/batch/enrichment` answers items
 * (`enrichItems`, charged through the pipeline's own credit step on the state store), written to a new CSV:
 * the input's rows as they were read, then the company columns, the segments (evaluated on the account's
 * facts — page views, intent, the CRM side — as the API's answers are: ../account-sources.ts) and `status` — every cell a
 * spreadsheet would run as a formula prefixed with `'` (server/http/csv.ts: the result is opened in Excel,
 * and its emails and notes came from web forms).
 *
 * Streaming in bounded memory: the input is read a chunk at a time (the project's CSV reader), rows are
 * answered `chunkRows` at a time (one metering transaction each) and written straight to the output.
 *
 * Resumable after a crash: a sidecar file next to the output (`<out>.progress`) records the job, how many
 * input rows are done and how many output bytes hold them. It is written (temp file, fsync, rename) only
 * after the output itself is fsync'd, so it never claims more than the disk holds. A run that finds it
 * truncates the output to the recorded bytes and continues after the recorded rows: the rows written past
 * the last checkpoint are answered again, and their charges are free then (the month's dedup of each
 * company), so the output and the credits are what one uninterrupted run gives.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { CustomerRecord } from '../../../core/access-records.ts';
import { defaultColumn, findColumn, kindOfColumn } from '../../../core/enrich-columns.ts';
import { isEntitled, notEntitledReason } from '../../../core/entitlements.ts';
import { type CsvRecord, CsvSyntaxError, csvRecordBatches } from '../../../data/sources/csv-records.ts';
import { SourceError } from '../../../data/sources/read.ts';
import type { Caller } from '../../auth/authenticate.ts';
import { csvText } from '../../http/csv.ts';
import { createMeteringSteps } from '../../http/metering-steps.ts';
import { sequentially } from '../../state/metering/port.ts';
import type { Metering } from '../../state/metering/service.ts';
import type { StateStore } from '../../state/store.ts';
import type { AccountSources } from '../account-sources.ts';
import { enrichItems } from '../batch.ts';
import type { BatchResult } from '../batch-schema.ts';
import type { CompanyLookups } from '../resolve-company.ts';
import { EnrichedCompanyV3 } from '../schema.ts';

/** Rows answered together by default: one metering transaction (SQLite) or script call (Redis) each. */
export const CHUNK_ROWS = 500;
/** A checkpoint (output fsync'd, then the progress file) at least every this many rows … */
const CHECKPOINT_ROWS = 5_000;
/** … or this often, whichever comes first. */
const CHECKPOINT_MS = 2_000;

/** The company columns: the v3 company object's fields, prefixed. */
export const COMPANY_COLUMNS = Object.keys(EnrichedCompanyV3.shape).map((f) => `company_${f}`);
/** Every column the job adds after the input's own. */
export const ADDED_COLUMNS = [...COMPANY_COLUMNS, 'segment_ids', 'segment_names', 'status'];

/** A job that cannot be done as asked (no such column, an unknown customer, an output in the way …): the caller's to fix. */
export class JobRefusedError extends Error {}

export interface ColumnPlan {
  /** Index of the input column read. */
  index: number;
  /** Whether its values are read as emails or as domains. */
  kind: 'email' | 'domain';
  /** The output's header: the input's, then ADDED_COLUMNS. */
  header: string[];
}

/**
 * Which input column the job reads (`column`, matched exactly, else ignoring case and spaces; by default
 * `email`, else `domain`) and as what: a column whose name says domain or website holds domains, any
 * other holds emails (core/enrich-columns.ts).
 */
export function planColumns(header: readonly string[], column: string | undefined): ColumnPlan {
  let index: number;
  if (column !== undefined) {
    index = findColumn(header, column);
    if (index < 0) throw new JobRefusedError(`no column "${column}" in the input; its columns: ${header.join(', ')}`);
  } else {
    index = defaultColumn(header);
    if (index < 0) throw new JobRefusedError(`the input has no email or domain column: name the one to read with --column (its columns: ${header.join(', ')})`);
  }
  const clash = ADDED_COLUMNS.filter((c) => header.includes(c));
  if (clash.length > 0) throw new JobRefusedError(`the input already has column(s) ${clash.join(', ')}, which the output adds: rename them first`);
  return { index, kind: kindOfColumn(header[index]!), header: [...header, ...ADDED_COLUMNS] };
}

const cell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** The added cells of one row: the company's fields (blank without a company), the segments, the status. */
export function resultCells(result: BatchResult): string[] {
  const company = 'company' in result ? (result.company as Record<string, unknown>) : null;
  const segments = 'segments' in result ? result.segments : null;
  return [
    ...Object.keys(EnrichedCompanyV3.shape).map((f) => cell(company?.[f])),
    segments ? segments.ids.join(';') : '',
    segments ? segments.names.join(';') : '',
    String(result.status),
  ];
}

/** The sidecar progress file: which job, and how far it got. */
const Checkpoint = z.object({
  version: z.literal(1),
  job: z.object({ input: z.string(), input_bytes: z.number(), input_mtime_ms: z.number(), column: z.string(), customer: z.string() }),
  /** Input data rows (after the header) whose output rows are on disk. */
  rows: z.number().int().min(0),
  /** Output bytes holding the header and those rows. */
  bytes: z.number().int().min(0),
  /** Credits the job's runs spent up to this checkpoint (a progress file of an earlier version has none). */
  credits: z.number().int().min(0).default(0),
  /** Rows per status up to this checkpoint, earlier runs included. */
  statuses: z.record(z.string(), z.number().int()).default({}),
  complete: z.boolean(),
});
type Checkpoint = z.infer<typeof Checkpoint>;

export const progressFileOf = (out: string) => `${out}.progress`;

/** What to do about a malformed input: a changed input is a new job (the progress file names the input's size and time). */
const FIX = ': fix the file, delete the output and its .progress file, and run again (companies charged this month are not charged again)';

function writeCheckpoint(file: string, cp: Checkpoint): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, JSON.stringify(cp));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

function readCheckpoint(file: string): Checkpoint {
  try {
    return Checkpoint.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (e) {
    throw new JobRefusedError(`${file} is not a progress file of svc enrich (${(e as Error).message.slice(0, 200)}): delete it and the output to start over`);
  }
}

/** The next batch of records, or null at the end; a syntax error names the file and says what to do. */
async function readBatch(batches: AsyncIterator<CsvRecord[]>, input: string, fix: string): Promise<CsvRecord[] | null> {
  try {
    const next = await batches.next();
    return next.done ? null : next.value;
  } catch (e) {
    if (e instanceof CsvSyntaxError) throw new SourceError(`${input} ${e.message}${fix}`);
    throw e;
  }
}

/** How far a run got, after each chunk written: every row before `rows` is in the output. */
export interface ChunkProgress {
  /** Input data rows done, earlier runs included. */
  rows: number;
  /** Credits spent by the job, earlier runs included. */
  credits: number;
  /** Rows done per status, earlier runs included. */
  statuses: Readonly<Record<string, number>>;
}

/** What a job reads of a data snapshot: the lookups of a lead's company, and what its segments read. */
export type JobCatalog = CompanyLookups & AccountSources['catalog'];

export interface FileJobOptions {
  input: string;
  output: string;
  column?: string;
  customerId: string;
  store: StateStore;
  /**
   * The data snapshot (the companies and people, and what the segments' intent, topic and lookalike
   * conditions read), or a function giving the current one, asked per chunk: a data reload applies from the
   * next chunk on and never leaves a long job on a closed snapshot.
   */
  catalog: JobCatalog | (() => JobCatalog);
  /** Where the accounts' page views, engagement and CRM sides are read (their stores): as the API reads them. */
  accounts: Omit<AccountSources, 'catalog'>;
  /** Rows per metering call (default CHUNK_ROWS); the answers and charges do not depend on it. */
  chunkRows?: number;
  /** Called after each chunk is written (and awaited: a caller recording progress may stop the run). */
  onChunk?: (p: ChunkProgress) => void | Promise<void>;
  /** Called once the run knows where it starts (0 for a fresh job; after a crash the checkpointed rows). */
  onStart?: (p: { resumedFrom: number; column: string }) => void;
  /**
   * Credits earlier runs spent as the caller recorded them after each chunk (newer than the last
   * checkpoint's count): the re-answered rows after a crash are free, so their credits are counted only here.
   */
  startCredits?: number;
  /** Stops the run after the current chunk, with a checkpoint (the job resumes from there); rejects with its reason. */
  signal?: AbortSignal;
  /** Advice appended to an input error (how to start over). */
  fixAdvice?: string;
  now?: () => Date;
}

export interface FileJobSummary {
  input: string;
  output: string;
  customer: string;
  column: string;
  /** Data rows in the output (the whole input). */
  rows: number;
  /** Rows a previous run had done (0 for a fresh job). */
  resumed_from: number;
  /** Rows answered by this run, per status. */
  statuses: Record<string, number>;
  /** Credits the job spent, earlier runs included (companies already charged this month are free). */
  credits: number;
  seconds: number;
  rows_per_second: number;
}

export async function entitledCustomer(store: Pick<StateStore, 'getCustomer'>, id: string): Promise<CustomerRecord> {
  const customer = await store.getCustomer(id);
  if (!customer) throw new JobRefusedError(`unknown customer ${id}`);
  if (!isEntitled(customer, 'company-firmographics')) throw new JobRefusedError(notEntitledReason(customer, 'company-firmographics'));
  return customer;
}

export async function runFileJob(o: FileJobOptions): Promise<FileJobSummary> {
  const started = Date.now();
  const now = o.now ?? (() => new Date());
  const fix = o.fixAdvice ?? FIX;
  const chunkRows = o.chunkRows ?? CHUNK_ROWS;
  await entitledCustomer(o.store, o.customerId);
  if (!existsSync(o.input)) throw new JobRefusedError(`${o.input} not found`);
  const inputStat = statSync(o.input);
  const job = {
    input: resolve(o.input),
    input_bytes: inputStat.size,
    input_mtime_ms: Math.trunc(inputStat.mtimeMs),
    column: o.column ?? '',
    customer: o.customerId,
  };
  const sidecar = progressFileOf(o.output);

  let cp: Checkpoint | null = null;
  if (existsSync(sidecar)) {
    cp = readCheckpoint(sidecar);
    if (JSON.stringify(cp.job) !== JSON.stringify(job))
      throw new JobRefusedError(
        `${sidecar} belongs to another job (${JSON.stringify(cp.job)}), or the input changed since: delete it and ${o.output} to start over`,
      );
    if (!existsSync(o.output)) throw new JobRefusedError(`${sidecar} records progress but ${o.output} is missing: delete ${sidecar} to start over`);
  } else if (existsSync(o.output)) {
    throw new JobRefusedError(`${o.output} already exists (and no ${sidecar} to resume from): delete it or choose another --out`);
  }

  const resumedFrom = cp?.rows ?? 0;
  const statuses: Record<string, number> = {};
  const allStatuses: Record<string, number> = { ...cp?.statuses };
  let credits = cp ? Math.max(cp.credits, o.startCredits ?? 0) : 0;
  let plan: ColumnPlan | null = null;
  if (cp?.complete) {
    unlinkSync(sidecar);
    return summary(cp.rows);
  }

  // The header first: a job it cannot do (no such column, a clash) must leave no output behind.
  const batches = csvRecordBatches(o.input)[Symbol.asyncIterator]();
  const first = await readBatch(batches, o.input, fix);
  if (first === null) throw new SourceError(`${o.input} is empty: it needs a header row`);
  plan = planColumns(first[0]!.fields, o.column);
  const { index, kind, header } = plan;
  const width = header.length - ADDED_COLUMNS.length;
  o.onStart?.({ resumedFrom, column: header[index]! });

  const fd = openSync(o.output, cp ? 'r+' : 'wx');
  try {
    let position = cp?.bytes ?? 0;
    // Rows written past the last checkpoint are answered again below.
    if (cp && fstatSync(fd).size > position) ftruncateSync(fd, position);
    let rowsDone = resumedFrom;
    let checkpointed = { rows: rowsDone, at: Date.now() };
    const checkpoint = (complete: boolean) => {
      fsyncSync(fd);
      writeCheckpoint(sidecar, { version: 1, job, rows: rowsDone, bytes: position, credits, statuses: allStatuses, complete });
      checkpointed = { rows: rowsDone, at: Date.now() };
    };
    const write = (text: string) => {
      const buf = Buffer.from(text, 'utf8');
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off, position + off);
      position += buf.length;
    };
    if (cp === null) {
      write(csvText([header]));
      checkpoint(false);
    }

    // The pipeline's credit step over the store, counting the credits it spends (a repeat this month is free).
    const counted: Metering = {
      hitRateLimits: (req) => o.store.hitRateLimits(req),
      async charge(req) {
        const outcome = await o.store.charge(req);
        if (outcome.outcome === 'charged') credits++;
        return outcome;
      },
      hitAndCharge(rate, charge) {
        return sequentially(counted, rate, charge);
      },
    };
    const steps = createMeteringSteps(counted, now);
    let pending: string[][] = [];
    const flush = async () => {
      if (pending.length === 0) return;
      const rows = pending;
      pending = [];
      // Read per chunk: credits the operator adds, segments a marketer saves, apply from the next chunk on.
      const customer = await entitledCustomer(o.store, o.customerId);
      const caller: Caller = { customer, token: null, tag: null, settings: { scores: false, segment_names: true }, corsOrigin: null, partner: null };
      const catalog = typeof o.catalog === 'function' ? o.catalog() : o.catalog;
      const results = await enrichItems(
        rows.map((fields) => ({ [kind]: fields[index] ?? '' })),
        {
          catalog,
          context: { customer, settings: caller.settings, now: now() },
          accounts: { ...o.accounts, catalog },
          charge: (c) => steps.charge(caller, c, null, null),
        },
      );
      // A row the store could not charge now is not written: the job stops, and a rerun answers it.
      const down = results.findIndex((r) => r.status === 503);
      if (down >= 0) {
        throw new Error(
          `the state store could not charge row ${rowsDone + down + 1} (${(results[down] as { message: string }).message}): run the same command again to continue`,
        );
      }
      // A short row (fewer fields than the header) gets blank cells, so the added columns stay aligned.
      write(csvText(rows.map((fields, i) => [...fields, ...Array<string>(width - fields.length).fill(''), ...resultCells(results[i]!)])));
      for (const r of results) {
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        allStatuses[r.status] = (allStatuses[r.status] ?? 0) + 1;
      }
      rowsDone += rows.length;
      await o.onChunk?.({ rows: rowsDone, credits, statuses: allStatuses });
      if (rowsDone - checkpointed.rows >= CHECKPOINT_ROWS || Date.now() - checkpointed.at >= CHECKPOINT_MS) checkpoint(false);
      if (o.signal?.aborted) {
        checkpoint(false);
        throw o.signal.reason ?? new Error('the job was stopped');
      }
    };

    let seen = 0;
    for (let batch: CsvRecord[] | null = first.slice(1); batch !== null; batch = await readBatch(batches, o.input, fix)) {
      for (const record of batch) {
        if (++seen <= resumedFrom) continue;
        if (record.fields.length > width)
          throw new SourceError(`${o.input} line ${record.line}: ${record.fields.length} fields, the header has ${width}${fix}`);
        pending.push(record.fields);
        if (pending.length >= chunkRows) await flush();
      }
    }
    await flush();
    checkpoint(true);
    unlinkSync(sidecar);
    return summary(rowsDone);
  } finally {
    closeSync(fd);
  }

  function summary(rows: number): FileJobSummary {
    const seconds = (Date.now() - started) / 1000;
    const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
    return {
      input: o.input,
      output: o.output,
      customer: o.customerId,
      column: plan === null ? (o.column ?? '') : plan.header[plan.index]!,
      rows,
      resumed_from: resumedFrom,
      statuses,
      credits,
      seconds: Math.round(seconds * 10) / 10,
      rows_per_second: seconds > 0 ? Math.round(answered / seconds) : answered,
    };
  }
}
