/**
 * The console upload of bulk enrichment (workspace API, `segments:write` to upload or remove — it spends the
 * customer's Enrichment credits —, `reports:read` to follow and download):
 *   POST   /admin/api/customers/:id/enrichment-jobs?column=&name=   text/csv body → 202 the job (queued)
 *   GET    /admin/api/customers/:id/enrichment-jobs                  this node's jobs of the customer
 *   GET    /admin/api/customers/:id/enrichment-jobs/:jobId           one job's progress
 *   GET    /admin/api/customers/:id/enrichment-jobs/:jobId/result.csv  the result, streamed (when done)
 *   DELETE /admin/api/customers/:id/enrichment-jobs/:jobId           cancel and remove (its files too)
 * The job runs on the node that took the upload (./runner.ts); other nodes do not know it (404).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, rmSync } from 'node:fs';
import { create as contentDisposition } from 'content-disposition';
import { z } from 'zod';
import { isEntitled, notEntitledReason } from '../../../core/entitlements.ts';
import { ApiError } from '../../../core/error-codes.ts';
import { quotaPeriod } from '../../credits/rules.ts';
import { customerOr404 } from '../../customers/lookup.ts';
import { adminRoute } from '../../http/admin-route.ts';
import type { RouteContext, RouteDef } from '../../http/route-def.ts';
import { admin, adminErrors, errors, type Headers, idParam, json, pathParam, RETRY, schema } from '../../openapi/kit.ts';
import type { Services } from '../../services.ts';
import { EnrichJob } from './job-store.ts';
import type { EnrichJobs } from './runner.ts';
import { checkFile, MAX_UPLOAD_BYTES, saveBody } from './upload.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;
const BASE = '/admin/api/customers/:id/enrichment-jobs';

export const UploadQuery = z.object({
  /** The column to read (default: email, else domain). */
  column: z.string().trim().min(1).max(200).optional(),
  /** The file's name, shown in the list and given to the result. */
  name: z.string().max(200).optional(),
});
type UploadQuery = z.infer<typeof UploadQuery>;

export const JobList = z.object({ node: z.string(), jobs: z.array(EnrichJob) });

const enabled = (s: Services) => s.enrichJobs !== undefined;
const jobsOf = (ctx: RouteContext<unknown, unknown>): EnrichJobs => ctx.services.enrichJobs!;

/** The customer's job of this node, else 404 (another customer's job, or one another node holds). */
function jobOr404(jobs: EnrichJobs, customerId: string, jobId: string): EnrichJob {
  const job = jobs.jobs.get(jobId);
  if (!job || job.customer_id !== customerId)
    throw new ApiError('not_found', `no enrichment job ${jobId} on this node (${jobs.node}): a job lives on the node that took its upload`);
  return job;
}

function requireCsv(contentType: string | undefined): void {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media !== 'text/csv') throw new ApiError('unsupported_type', 'the upload is a CSV file: send it as the body with Content-Type: text/csv');
}

/** A file name for the list and the download: its last path part, printable, at most 120 characters. */
function cleanName(name: string | undefined): string {
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    .replace(/[\p{Cc}"]/gu, '')
    .trim()
    .slice(0, 120);
  return base || 'upload.csv';
}

const resultName = (fileName: string) => `${fileName.replace(/\.csv$/i, '')}-enriched.csv`;

const JOB_ID = pathParam('jobId', 'The enrichment job id (`ej_…`)');
const docs = {
  upload: admin('uploadEnrichmentJob', 'Enrich a CSV file: upload it (text/csv) and a job enriches every row in the background on this node', {
    description: `The body is the CSV file (UTF-8, or UTF-16 with a BOM; \`Content-Encoding: gzip\` accepted), streamed to this node's disk. Before a byte is stored: a customer with \`SVC_JOBS_MAX_QUEUED\` jobs (default 3) queued or running on this node is 409 \`conflict\`. While it streams: a file decoding to more than \`SVC_JOBS_MAX_UPLOAD_MB\` (default ${MAX_UPLOAD_BYTES / 1024 / 1024} MB), a gzip body decoding to more than \`SVC_JOBS_MAX_GZIP_RATIO\` (default 50) times its compressed size (plus 1 MB), or a file whose upload and result (reserved as twice the file plus 1 KB per row) would pass the \`SVC_JOBS_MAX_CUSTOMER_MB\` (default 2048) the customer's jobs may hold on the node, kept results included, is 413 \`too_large\` — nothing is kept. When the node's jobs would pass \`SVC_JOBS_MAX_TOTAL_MB\` or leave less than \`SVC_JOBS_MIN_FREE_MB\` free on its disk (which also holds the state, the logs and the journal), it is 503 \`unavailable\` with \`Retry-After\`: the node's condition, not the file's (another node may take it). Finished jobs are deleted after \`SVC_JOBS_RETENTION_DAYS\` (default 7). It is checked first: a file that is not CSV, has no \`email\`/\`domain\` column (or not the \`column\` named), already has a column the job adds, has no rows, or a row wider than its header is 422 (the message names the line); nothing is charged then. A customer with no Enrichment credit left is 402. Otherwise the job is queued (202) and each row is answered as \`POST /v3/batch/enrichment\` answers an item — the same answer, the same credits (1 per company per calendar month) — in the columns \`svc enrich\` writes (company_*, segment_ids, segment_names, status). At most two jobs run at once per node, one per customer; a server stop or crash resumes the job from its last checkpoint on the next start, without charging twice.`,
    parameters: [
      idParam('customer'),
      {
        name: 'column',
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description: 'The column to read (default: email, else domain); a name holding "domain" or "website" is read as domains',
      },
      {
        name: 'name',
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description: "The file's name (shown in the list; the result is `<name>-enriched.csv`)",
      },
    ],
    requestBody: { required: true, content: { 'text/csv': { schema: { type: 'string' }, example: 'id,email\n1,ann@northwind.example\n' } } },
    responses: {
      202: { description: 'The job, queued', content: json(schema(EnrichJob)) },
      ...adminErrors('write', 402, 409, 413, 422),
      ...errors([409, 413, 503], (s): Headers => (s === 503 ? RETRY : {}), {
        409: { codes: ['conflict'], description: 'The customer already has `SVC_JOBS_MAX_QUEUED` jobs queued or running on this node (`conflict`)' },
        413: {
          codes: ['too_large'],
          description:
            'The file is over `SVC_JOBS_MAX_UPLOAD_MB` decoded, a gzip body decodes to more than `SVC_JOBS_MAX_GZIP_RATIO` times its size, or the customer’s jobs would hold more than `SVC_JOBS_MAX_CUSTOMER_MB` (`too_large`)',
        },
        503: {
          codes: ['unavailable'],
          description:
            'The node’s enrichment jobs are at `SVC_JOBS_MAX_TOTAL_MB`, or its disk would fall under `SVC_JOBS_MIN_FREE_MB` free, or the state store is unavailable (`unavailable`): retry after Retry-After seconds',
        },
      }),
    },
  }),
  list: admin('listEnrichmentJobs', "The customer's enrichment jobs on this node, newest first, with their progress", {
    description: 'Jobs live on the node that took their upload: behind a load balancer each node lists its own (`node` says which answered).',
    parameters: [idParam('customer')],
    responses: { 200: { description: 'The jobs', content: json(schema(JobList)) }, ...adminErrors('read') },
  }),
  get: admin('getEnrichmentJob', 'One enrichment job: status, rows done, rate, time left, credits spent', {
    parameters: [idParam('customer'), JOB_ID],
    responses: { 200: { description: 'The job', content: json(schema(EnrichJob)) }, ...adminErrors('read') },
  }),
  result: admin('downloadEnrichmentResult', "A finished job's result: the file's rows and the added columns (CSV, streamed)", {
    parameters: [idParam('customer'), JOB_ID],
    responses: {
      200: { description: 'The result', content: { 'text/csv': { schema: { type: 'string' } } } },
      ...adminErrors('read', 409),
    },
  }),
  delete: admin('deleteEnrichmentJob', 'Cancel an enrichment job (a running one stops after its current rows) and delete it and its files', {
    description: 'Credits already spent stay spent.',
    parameters: [idParam('customer'), JOB_ID],
    responses: { 204: { description: 'Deleted' }, ...adminErrors('delete') },
  }),
};

export const enrichmentJobRoutes: RouteDef[] = [
  adminRoute<undefined, UploadQuery>({
    method: 'POST',
    path: BASE,
    access: { permission: 'segments:write', customer: CUSTOMER },
    body: { types: 'stream', limit: MAX_UPLOAD_BYTES, media: ['text/csv'] },
    query: UploadQuery,
    enabled,
    doc: docs.upload,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      const jobs = jobsOf(ctx);
      // The customer (404), the type (415), what it may spend (403, 402): all before a byte is stored.
      const customer = await customerOr404(ctx.services.store, customerId);
      requireCsv(ctx.req.get('content-type'));
      if (!isEntitled(customer, 'company-firmographics')) throw new ApiError('forbidden', notEntitledReason(customer, 'company-firmographics'));
      const balance = await ctx.services.store.balance(
        customer.id,
        'enrichment',
        quotaPeriod(customer.contract_start, new Date()),
        customer.enrichment_credits,
      );
      if (balance.remaining <= 0)
        throw new ApiError(
          'quota_exhausted',
          'no Enrichment API credits left for this contract year: every company found would be refused; contact your customer success manager to add credits',
        );
      // Room for one more job of this customer on this node (409, 413, 503 otherwise): before a byte is stored.
      const room = jobs.admitUpload(customerId);
      const id = `ej_${randomBytes(8).toString('hex')}`;
      const folder = jobs.folderOf(customerId, id);
      mkdirSync(folder, { recursive: true });
      let job: EnrichJob;
      try {
        const size = await saveBody(ctx.req.raw, jobs.inputOf(customerId, id), {
          maxBytes: jobs.limits.maxUploadBytes,
          gzipRatio: jobs.limits.maxGzipRatio,
          room,
        });
        const checked = await checkFile(jobs.inputOf(customerId, id), ctx.query.column);
        const principal = ctx.principal;
        job = await jobs.insertAdmitted({
          id,
          customer_id: customerId,
          file_name: cleanName(ctx.query.name),
          column: ctx.query.column ?? null,
          column_used: checked.column,
          input_bytes: size,
          rows_total: checked.rows,
          created_by: principal?.kind === 'user' ? principal.user.email : 'operator',
          node: jobs.node,
        });
      } catch (e) {
        rmSync(folder, { recursive: true, force: true });
        throw e;
      }
      await ctx.audit({
        customer: customerId,
        action: 'enrichment_job.create',
        target: id,
        after: { file_name: job.file_name, rows: job.rows_total, column: job.column_used, bytes: job.input_bytes, node: job.node },
      });
      // Claimed before the answer when a slot is free, so the 202 says `running`.
      await jobs.pump();
      return { status: 202, body: jobs.jobs.get(id) ?? job, headers: { Location: `${BASE.replace(':id', encodeURIComponent(customerId))}/${id}` } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: BASE,
    access: { permission: 'reports:read', customer: CUSTOMER },
    enabled,
    doc: docs.list,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      await customerOr404(ctx.services.store, customerId);
      const jobs = jobsOf(ctx);
      return { status: 200, body: { node: jobs.node, jobs: jobs.jobs.list(customerId) } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: `${BASE}/:jobId`,
    access: { permission: 'reports:read', customer: CUSTOMER },
    enabled,
    doc: docs.get,
    handler: (ctx) => ({ status: 200, body: jobOr404(jobsOf(ctx), ctx.req.params.id!, ctx.req.params.jobId!) }),
  }),
  adminRoute({
    method: 'GET',
    path: `${BASE}/:jobId/result.csv`,
    access: { permission: 'reports:read', customer: CUSTOMER },
    enabled,
    doc: docs.result,
    handler: (ctx) => {
      const jobs = jobsOf(ctx);
      const job = jobOr404(jobs, ctx.req.params.id!, ctx.req.params.jobId!);
      if (job.status !== 'done')
        throw new ApiError(
          'conflict',
          job.status === 'failed' ? `the job failed: ${job.error ?? 'no result'}` : `the job is ${job.status}: its result is ready when it is done`,
        );
      return {
        status: 200,
        stream: createReadStream(jobs.resultOf(job.customer_id, job.id)),
        type: 'text/csv; charset=utf-8',
        headers: { 'Content-Disposition': contentDisposition(resultName(job.file_name)) },
      };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: `${BASE}/:jobId`,
    access: { permission: 'segments:write', customer: CUSTOMER },
    enabled,
    doc: docs.delete,
    handler: async (ctx) => {
      const customerId = ctx.req.params.id!;
      const jobs = jobsOf(ctx);
      const job = jobOr404(jobs, customerId, ctx.req.params.jobId!);
      await jobs.remove(job.id);
      await ctx.audit({
        customer: customerId,
        action: 'enrichment_job.delete',
        target: job.id,
        before: { file_name: job.file_name, status: job.status, rows_done: job.rows_done, rows: job.rows_total, credits: job.credits },
      });
      return { status: 204 };
    },
  }),
];
