/** `svc enrich --in FILE --out FILE --customer ID [--column NAME]`: a CSV enriched as the batch API answers (./enrich-job.ts). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG_FILE } from '../../data/catalog/schema.ts';
import type { Command } from './commands.ts';
import { type CommandContext, emit, pathIn, requireOption, UsageError } from './output.ts';
import { withStore } from './with-store.ts';

/** The progress bar of the job: on the CLI's stderr when both its streams are a terminal (as `data build`'s). */
async function progressOf({ json, io }: CommandContext) {
  const { SILENT, terminalProgress } = await import('../../data/progress.ts');
  return io.stdout.isTTY && io.stderr.isTTY ? terminalProgress(json, io.stderr as NodeJS.WriteStream) : SILENT;
}

const HELP = `
Reads --in (CSV with a header row; UTF-8, or UTF-16 with a BOM) and writes --out: every input row as read,
then the added columns: company_<field> for each field of the Company Firmographics v3 company
(company_companyId, company_domain, company_name … company_is_blacklisted; blank without a company),
segment_ids and segment_names (';'-separated), and status — what POST /v3/batch/enrichment answers for the
row: 200 found, 404 no company, 422 a blank or invalid value, 402 no credit left for a new company.

--column names the input column to read (default: email, else domain); a column whose name holds "domain"
or "website" is read as domains, any other as emails. Charged exactly as the API: 1 Enrichment API credit
per company per calendar month (repeats free), to --customer's contract; 404s and 422s are free.

Resumable: --out.progress records how far the job got (rows and output bytes, fsync'd every 5,000 rows or
2 s). After a crash or Ctrl-C, run the same command again: it truncates --out to the last recorded point
and continues without charging twice. --out must not exist for a new job. Reads the data (SVC_DATA) and the
state store (SVC_STATE, or SVC_REDIS_URL) directly: no server needs to run.
`;

export const ENRICH_COMMANDS: Record<string, Command> = {
  enrich: {
    usage: 'enrich --in FILE --out FILE --customer ID [--column NAME]',
    summary: 'enrich a CSV of emails or domains as POST /v3/batch/enrichment does (same answers, same credits); resumable',
    help: HELP,
    options: { in: { type: 'string' }, out: { type: 'string' }, customer: { type: 'string' }, column: { type: 'string' } },
    async run(v, _p, ctx) {
      const input = pathIn(ctx.io, requireOption(v, 'in'));
      const output = pathIn(ctx.io, requireOption(v, 'out'));
      const customerId = requireOption(v, 'customer');
      const column = v.column as string | undefined;
      const progress = await progressOf(ctx);
      const summary = await withStore(ctx.io, async (store, config, backend) => {
        const file = join(config.SVC_DATA, CATALOG_FILE);
        if (!existsSync(file))
          throw new UsageError(`${file} not found: build the data first (npm run svc -- data build --in data/sample --out ${config.SVC_DATA})`);
        // Loaded only here: every other command would pay for the catalog and the answers' modules.
        const [{ openCatalog }, { estimateRows }, { runEnrichJob }] = await Promise.all([
          import('../data/catalog.ts'),
          import('../../data/progress.ts'),
          import('./enrich-job.ts'),
        ]);
        const catalog = openCatalog(file);
        try {
          // The accounts' page views and CRM sides from the same state: the segments answer as the API's do.
          let warned = false;
          const onError = (e: unknown) => {
            if (warned) return;
            warned = true;
            ctx.io.stderr.write(
              `svc enrich: the state store did not answer an account's page views or CRM side (${(e as Error).message}): rows answered meanwhile lack the segments that read them\n`,
            );
          };
          const accounts = { visits: backend.visits, engagement: backend.engagement, crm: backend.crm, onError };
          return await runEnrichJob({ input, output, column, customerId, store, catalog, accounts, progress, estimatedRows: estimateRows(input) });
        } finally {
          catalog.close();
        }
      });
      emit(ctx, summary, () => {
        const counts = Object.entries(summary.statuses)
          .map(([s, n]) => `${n.toLocaleString('en-US')} × ${s}`)
          .join(', ');
        return (
          `${summary.output}: ${summary.rows.toLocaleString('en-US')} rows enriched from ${summary.input} (column ${summary.column}) for ${summary.customer}` +
          (summary.resumed_from > 0 ? `, resumed after row ${summary.resumed_from.toLocaleString('en-US')}` : '') +
          `\nthis run: ${counts || 'nothing left to do'} in ${summary.seconds} s (${summary.rows_per_second.toLocaleString('en-US')} rows/s)`
        );
      });
    },
  },
};
