/**
 * The bodies and answers of the segment routes (./routes.ts): the zod schemas are the validation, the
 * types and the OpenAPI document's schemas (server/openapi/document.ts).
 */
import { z } from 'zod';
import { SegmentMatch, SegmentName } from '../../core/customer-records.ts';

/** POST /admin/api/customers/:id/segments: the id is given by the server. */
export const NewSegment = z.object({ name: SegmentName, match: SegmentMatch }).strict();
export type NewSegment = z.infer<typeof NewSegment>;

/** PATCH …/segments/:segmentId: only the fields given (at least one). */
export const SegmentPatch = z
  .object({ name: SegmentName, match: SegmentMatch })
  .partial()
  .strict()
  .refine((p) => p.name !== undefined || p.match !== undefined, { message: 'nothing to change: give name or match' });
export type SegmentPatch = z.infer<typeof SegmentPatch>;

export const SegmentPreviewBody = z.object({ match: SegmentMatch }).strict();

export const SegmentAccount = z.object({
  companyId: z.string(),
  name: z.string().nullable(),
  domain: z.string().nullable(),
});
export type SegmentAccount = z.infer<typeof SegmentAccount>;

export const SegmentPreview = z.object({
  size: z.number().int().min(0).describe('Accounts of the catalog the rule matches'),
  accounts: z.array(SegmentAccount).describe('The first 20 of them, in company id order'),
});

export const SegmentsList = z.object({
  segments: z.array(
    z.object({
      id: z.number().int().positive(),
      name: z.string(),
      rule: z
        .string()
        .describe('The rule in words: each condition (a field with the values it accepts, intent, behaviour), groups as `any of (…)` / `all of (…)`'),
      size: z.number().int().min(0).describe('Member accounts in the catalog'),
    }),
  ),
});

export const SegmentAccounts = z.object({
  accounts: z.array(SegmentAccount),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
});

export const SegmentMembership = z.object({
  domain: z.string(),
  companyId: z.string(),
  segments: z.object({
    ids: z.array(z.number().int()),
    names: z.array(z.string()).describe("Present only when the token's segment_names setting is on (else empty)"),
  }),
});

const queryValue = () => z.string({ error: 'must be given at most once' }).max(512).optional();

export const SegmentAccountsQuery = z.object({
  limit: z.coerce.number({ error: 'must be a whole number from 1 to 1000' }).int().min(1).max(1000).default(100),
  cursor: queryValue(),
});

export const MembershipQuery = z.object({ domain: queryValue() });
