/**
 * The body and answer of the lookalike preview (./routes.ts): the zod schemas are the validation, the
 * types and the OpenAPI document's schemas.
 */
import { z } from 'zod';
import { LookalikeSeed } from '../../core/customer-records.ts';

/** Accounts a preview answers at most, and by default. */
export const MAX_PREVIEW_LIMIT = 200;
export const DEFAULT_PREVIEW_LIMIT = 20;

export const LookalikePreviewBody = z
  .object({
    seed: LookalikeSeed.describe(
      'One of `{"list": "<list id>"}` (hot, excluded or a named list), `{"segment": <segment id>}` (its members) or `{"companies": ["<company id>", …]}` (at most 10,000)',
    ),
    limit: z
      .number({ error: `a whole number from 1 to ${MAX_PREVIEW_LIMIT}` })
      .int(`a whole number from 1 to ${MAX_PREVIEW_LIMIT}`)
      .min(1, `a whole number from 1 to ${MAX_PREVIEW_LIMIT}`)
      .max(MAX_PREVIEW_LIMIT, `a whole number from 1 to ${MAX_PREVIEW_LIMIT}`)
      .default(DEFAULT_PREVIEW_LIMIT)
      .describe(`How many accounts to answer (1–${MAX_PREVIEW_LIMIT}, default ${DEFAULT_PREVIEW_LIMIT})`),
  })
  .strict();
export type LookalikePreviewBody = z.infer<typeof LookalikePreviewBody>;

export const LookalikeAccount = z.object({
  company_id: z.string(),
  name: z.string().nullable(),
  domain: z.string().nullable(),
  score: z.number().min(0).max(1).describe('Similarity to the seed, 0–1, three decimals'),
  reasons: z
    .array(z.string())
    .describe('What it shares with the seed, the largest part of the score first ("same industry (Software)", "shares NAICS 5112", "200–499 employees")'),
  excluded: z.boolean().describe("In the customer's excluded accounts (shown, flagged: identification answers it with is_blacklisted)"),
});
export type LookalikeAccount = z.infer<typeof LookalikeAccount>;

export const LookalikePreview = z.object({
  accounts: z.array(LookalikeAccount).describe('The accounts most like the seed, highest score first (equal scores by company id); never one of the seed'),
  seed: z.object({
    accounts: z.number().int().min(0).describe('Accounts of the seed the catalog holds (what the profile is made of)'),
    not_found: z.number().int().min(0).describe('Company ids the seed names that the catalog does not hold'),
  }),
});
export type LookalikePreview = z.infer<typeof LookalikePreview>;
