/**
 * `svc enrich`'s job: the shared file job (server/enrichment/jobs/file-job.ts, also what the console upload
 * runs) with the CLI's progress bar, and its refusals as usage errors (exit code 2).
 */
import type { Progress } from '../../data/progress.ts';
import { type FileJobOptions, type FileJobSummary, JobRefusedError, runFileJob } from '../enrichment/jobs/file-job.ts';
import { UsageError } from './output.ts';

export { ADDED_COLUMNS, COMPANY_COLUMNS, planColumns, progressFileOf, resultCells } from '../enrichment/jobs/file-job.ts';

/** The file job's options the CLI takes (the rest are the console's: cancel, credits recorded per chunk). */
export interface EnrichJobOptions extends Pick<FileJobOptions, 'input' | 'output' | 'column' | 'customerId' | 'store' | 'catalog' | 'accounts' | 'now'> {
  progress: Progress;
  /** Rows in the input, estimated (for the progress bar's time left). */
  estimatedRows?: number;
}

export type EnrichSummary = FileJobSummary;

export async function runEnrichJob(o: EnrichJobOptions): Promise<EnrichSummary> {
  let from = 0;
  let phased = false;
  try {
    return await runFileJob({
      input: o.input,
      output: o.output,
      column: o.column,
      customerId: o.customerId,
      store: o.store,
      catalog: o.catalog,
      accounts: o.accounts,
      now: o.now,
      onStart({ resumedFrom }) {
        from = resumedFrom;
        phased = true;
        o.progress.phase(
          resumedFrom > 0 ? `enrich (from row ${resumedFrom + 1})` : 'enrich',
          o.estimatedRows === undefined ? undefined : Math.max(0, o.estimatedRows - resumedFrom),
        );
      },
      onChunk: ({ rows }) => o.progress.update(rows - from),
    });
  } catch (e) {
    if (e instanceof JobRefusedError) throw new UsageError(e.message);
    throw e;
  } finally {
    if (phased) o.progress.end();
  }
}
