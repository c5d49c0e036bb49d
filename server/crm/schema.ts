/** The CRM API's request bodies (zod: validation and types) and the connection as answered. */
import { z } from 'zod';
import { CrmConnectionRecord, CrmMapping, CrmRunRecord } from '../../core/crm-records.ts';

export const HUBSPOT_API = 'https://api.hubapi.com';

const HttpsUrl = z
  .string()
  .trim()
  .url('a URL')
  .refine((u) => /^https?:\/\//i.test(u), 'an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));

/** PUT …/crm/hubspot: a private app's access token. */
export const ConnectHubSpot = z
  .object({
    access_token: z.string().trim().min(1, 'required').max(500),
    base_url: HttpsUrl.default(HUBSPOT_API),
    mapping: CrmMapping.default({}),
    create_missing: z.boolean().default(false),
  })
  .strict();

/** PUT …/crm/salesforce: a connected app's client credentials and the org's My Domain URL (`url`; `base_url` is the same). */
export const ConnectSalesforce = z
  .object({
    client_id: z.string().trim().min(1, 'required').max(500),
    client_secret: z.string().trim().min(1, 'required').max(500),
    url: HttpsUrl.optional(),
    base_url: HttpsUrl.optional(),
    mapping: CrmMapping.default({}),
    create_missing: z.boolean().default(false),
  })
  .strict()
  .refine((b) => b.url !== undefined || b.base_url !== undefined, { message: 'required (the org’s My Domain URL, https://…my.salesforce.com)', path: ['url'] });

/** PATCH …/crm/:provider: only the fields given. `status` pauses or resumes (resuming clears "needs attention"). */
export const CrmPatch = z
  .object({
    mapping: CrmMapping.optional(),
    create_missing: z.boolean().optional(),
    status: z.enum(['active', 'paused']).optional(),
  })
  .strict();

/** POST …/crm/:provider/sync: a body-less POST is an incremental run. */
export const SyncBody = z
  .object({
    full: z.boolean().default(false),
    dry_run: z.boolean().default(false),
  })
  .strict();

export const CrmFieldView = z.object({ key: z.string(), field: z.string(), type: z.string() });

/** A connection as the API answers it: never its secret; the fields written, what waits, the last run. */
export const CrmConnectionView = CrmConnectionRecord.extend({
  fields: z.array(CrmFieldView),
  pending: z.number().int(),
  last_run: CrmRunRecord.nullable(),
});
export type CrmConnectionView = z.infer<typeof CrmConnectionView>;
