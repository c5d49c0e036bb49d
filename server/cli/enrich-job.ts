/**
 * `svc enrich`: a CSV of emails or domains enriched row by row as `POST /v3/batch/enrichment` answers
 * items (`enrichItems`, charged through the pipeline's own credit step on the state store), written to a
 * new CSV: the input's rows as they were read, then the company columns, the segments and `status`.
 *
 * Streaming in bounded memory: the input is read a chunk at a time (the project's CSV reader), rows are
 * answered CHUNK_ROWS at a time (one metering transaction each) and written straight to the output.
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
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import type { Progress } from '../../data/progress.ts';
import { type CsvRecord, CsvSyntaxError, csvRecordBatches } from '../../data/sources/csv-records.ts';
import { SourceError } from '../../data/sources/read.ts';
import type { Caller } from '../auth/authenticate.ts';
import { isEntitled, notEntitledReason } from '../auth/entitlements.ts';
import { enrichItems } from '../enrichment/batch.ts';
import type { BatchResult } from '../enrichment/batch-schema.ts';
import type { CompanyLookups } from '../enrichment/resolve-company.ts';
import { EnrichedCompanyV3 } from '../enrichment/schema.ts';
import { createMeteringSteps } from '../http/metering-steps.ts';
import type { CustomerRecord, StateStore } from '../state/store.ts';
import { UsageError } from './output.ts';

/** Rows answered together: one metering transaction (SQLite) or script call (Redis) each. */
const CHUNK_ROWS = 500;
/** A checkpoint (output fsync'd, then the progress file) at least every this many rows … */
const CHECKPOINT_ROWS = 5_000;
/** … or this often, whichever comes first. */
const CHECKPOINT_MS = 2_000;

/** The company columns: the v3 company object's fields, prefixed. */
export const COMPANY_COLUMNS = Object.keys(EnrichedCompanyV3.shape).map((f) => `company_${f}`);
/** Every column the job adds after the input's own. */
export const ADDED_COLUMNS = [...COMPANY_COLUMNS, 'segment_ids', 'segment_names', 'status'];

export interface ColumnPlan {
  /** Index of the input column read. */
  index: number;
  /** Whether its values are read as emails or as domains. */
  kind: 'email' | 'domain';
  /** The output's header: the input's, then ADDED_COLUMNS. */
  header: string[];
}

/**
 * Which input column the job reads (`--column`, matched exactly, else ignoring case and spaces; by default
 * `email`, else `domain`) and as what: a column whose name says domain or website holds domains, any
 * other holds emails.
 */
export function planColumns(header: readonly string[], column: string | undefined): ColumnPlan {
  const norm = (s: string) => s.trim().toLowerCase();
  const find = (name: string) => {
    const exact = header.indexOf(name);
    return exact >= 0 ? exact : header.findIndex((h) => norm(h) === norm(name));
  };
  let index: number;
  if (column !== undefined) {
    index = find(column);
    if (index < 0) throw new UsageError(`no column "${column}" in the input; its columns: ${header.join(', ')}`);
  } else {
    index = find('email');
    if (index < 0) index = find('domain');
    if (index < 0) throw new UsageError(`the input has no email or domain column: name the one to read with --column (its columns: ${header.join(', ')})`);
  }
  const clash = ADDED_COLUMNS.filter((c) => header.includes(c));
  if (clash.length > 0) throw new UsageError(`the input already has column(s) ${clash.join(', ')}, which the output adds: rename them first`);
  return { index, kind: /domain|website/i.test(header[index]!) ? 'domain' : 'email', header: [...header, ...ADDED_COLUMNS] };
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
    throw new UsageError(`${file} is not a progress file of svc enrich (${(e as Error).message.slice(0, 200)}): delete it and the output to start over`);
  }
}

/** The next batch of records, or null at the end; a syntax error names the file and says what to do. */
async function readBatch(batches: AsyncIterator<CsvRecord[]>, input: string): Promise<CsvRecord[] | null> {
  try {
    const next = await batches.next();
    return next.done ? null : next.value;
  } catch (e) {
    if (e instanceof CsvSyntaxError) throw new SourceError(`${input} ${e.message}${FIX}`);
    throw e;
  }
}

export interface EnrichJobOptions {
  input: string;
  output: string;
  column?: string;
  customerId: string;
  store: StateStore;
  catalog: CompanyLookups;
  progress: Progress;
  /** Rows in the input, estimated (for the progress bar's time left). */
  estimatedRows?: number;
  now?: () => Date;
}

export interface EnrichSummary {
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
  seconds: number;
  rows_per_second: number;
}

async function entitledCustomer(store: StateStore, id: string): Promise<CustomerRecord> {
  const customer = await store.getCustomer(id);
  if (!customer) throw new UsageError(`unknown customer ${id}`);
  if (!isEntitled(customer, 'company-firmographics')) throw new UsageError(notEntitledReason(customer, 'company-firmographics'));
  return customer;
}

export async function runEnrichJob(o: EnrichJobOptions): Promise<EnrichSummary> {
  const started = Date.now();
  const now = o.now ?? (() => new Date());
  await entitledCustomer(o.store, o.customerId);
  if (!existsSync(o.input)) throw new UsageError(`${o.input} not found`);
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
      throw new UsageError(
        `${sidecar} belongs to another job (${JSON.stringify(cp.job)}), or the input changed since: delete it and ${o.output} to start over`,
      );
    if (!existsSync(o.output)) throw new UsageError(`${sidecar} records progress but ${o.output} is missing: delete ${sidecar} to start over`);
  } else if (existsSync(o.output)) {
    throw new UsageError(`${o.output} already exists (and no ${sidecar} to resume from): delete it or choose another --out`);
  }

  const resumedFrom = cp?.rows ?? 0;
  const statuses: Record<string, number> = {};
  let plan: ColumnPlan | null = null;
  if (cp?.complete) {
    unlinkSync(sidecar);
    return summary(cp.rows);
  }

  // The header first: a job it cannot do (no such column, a clash) must leave no output behind.
  const batches = csvRecordBatches(o.input)[Symbol.asyncIterator]();
  const first = await readBatch(batches, o.input);
  if (first === null) throw new SourceError(`${o.input} is empty: it needs a header row`);
  plan = planColumns(first[0]!.fields, o.column);
  const { index, kind, header } = plan;
  const width = header.length - ADDED_COLUMNS.length;

  const fd = openSync(o.output, cp ? 'r+' : 'wx');
  try {
    let position = cp?.bytes ?? 0;
    // Rows written past the last checkpoint are answered again below.
    if (cp && fstatSync(fd).size > position) ftruncateSync(fd, position);
    let rowsDone = resumedFrom;
    let checkpointed = { rows: rowsDone, at: Date.now() };
    const checkpoint = (complete: boolean) => {
      fsyncSync(fd);
      writeCheckpoint(sidecar, { version: 1, job, rows: rowsDone, bytes: position, complete });
      checkpointed = { rows: rowsDone, at: Date.now() };
    };
    const write = (text: string) => {
      const buf = Buffer.from(text, 'utf8');
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off, position + off);
      position += buf.length;
    };
    if (cp === null) {
      write(stringify([header]));
      checkpoint(false);
    }

    const steps = createMeteringSteps(o.store, now);
    let pending: string[][] = [];
    const flush = async () => {
      if (pending.length === 0) return;
      const rows = pending;
      pending = [];
      // Read per chunk: credits the operator adds, segments a marketer saves, apply from the next chunk on.
      const customer = await entitledCustomer(o.store, o.customerId);
      const caller: Caller = { customer, token: null, tag: null, settings: { scores: false, segment_names: true }, corsOrigin: null, partner: null };
      const results = await enrichItems(
        rows.map((fields) => ({ [kind]: fields[index] ?? '' })),
        { catalog: o.catalog, context: { customer, settings: caller.settings, now: now() }, charge: (c) => steps.charge(caller, c, null, null) },
      );
      // A row the store could not charge now is not written: the job stops, and a rerun answers it.
      const down = results.findIndex((r) => r.status === 503);
      if (down >= 0) {
        throw new Error(
          `the state store could not charge row ${rowsDone + down + 1} (${(results[down] as { message: string }).message}): run the same command again to continue`,
        );
      }
      // A short row (fewer fields than the header) gets blank cells, so the added columns stay aligned.
      write(stringify(rows.map((fields, i) => [...fields, ...Array<string>(width - fields.length).fill(''), ...resultCells(results[i]!)])));
      for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      rowsDone += rows.length;
      o.progress.update(rowsDone - resumedFrom);
      if (rowsDone - checkpointed.rows >= CHECKPOINT_ROWS || Date.now() - checkpointed.at >= CHECKPOINT_MS) checkpoint(false);
    };

    o.progress.phase(
      resumedFrom > 0 ? `enrich (from row ${resumedFrom + 1})` : 'enrich',
      o.estimatedRows === undefined ? undefined : Math.max(0, o.estimatedRows - resumedFrom),
    );
    try {
      let seen = 0;
      for (let batch: CsvRecord[] | null = first.slice(1); batch !== null; batch = await readBatch(batches, o.input)) {
        for (const record of batch) {
          if (++seen <= resumedFrom) continue;
          if (record.fields.length > width)
            throw new SourceError(`${o.input} line ${record.line}: ${record.fields.length} fields, the header has ${width}${FIX}`);
          pending.push(record.fields);
          if (pending.length >= CHUNK_ROWS) await flush();
        }
      }
      await flush();
    } finally {
      o.progress.end();
    }
    checkpoint(true);
    unlinkSync(sidecar);
    return summary(rowsDone);
  } finally {
    closeSync(fd);
  }

  function summary(rows: number): EnrichSummary {
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
      seconds: Math.round(seconds * 10) / 10,
      rows_per_second: seconds > 0 ? Math.round(answered / seconds) : answered,
    };
  }
}
