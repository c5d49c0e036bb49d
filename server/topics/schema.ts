/**
 * The bodies and answers of the intent-topic routes (./routes.ts): the zod schemas are the validation, the
 * types and the OpenAPI document's schemas.
 */
import { z } from 'zod';
import { CustomerTopics, MAX_CUSTOMER_TOPICS } from '../../core/topic-records.ts';

/** PUT /admin/api/customers/:id/topics: the whole list of followed topics ([] follows none). */
export const TopicsUpdate = z
  .object({ topics: CustomerTopics.describe(`The topics to follow (names of the dataset's topics, at most ${MAX_CUSTOMER_TOPICS}); the whole list`) })
  .strict();
export type TopicsUpdate = z.infer<typeof TopicsUpdate>;

export const CustomerTopicsAnswer = z.object({
  customer_id: z.string(),
  topics: z.array(z.string()).describe('The topics the customer follows, as the dataset spells them'),
  latest_week: z.string().nullable().describe('The latest week the dataset holds (its Monday, YYYY-MM-DD); null when it has no topics'),
});
export type CustomerTopicsAnswer = z.infer<typeof CustomerTopicsAnswer>;

/** Topic names listed at most per request. */
export const MAX_NAMES = 2000;

export const TopicNamesQuery = z.object({
  q: z.string().max(200, 'q: at most 200 characters').default(''),
  limit: z.coerce
    .number({ error: `limit: a whole number from 1 to ${MAX_NAMES}` })
    .int(`limit: a whole number from 1 to ${MAX_NAMES}`)
    .min(1, `limit: a whole number from 1 to ${MAX_NAMES}`)
    .max(MAX_NAMES, `limit: a whole number from 1 to ${MAX_NAMES}`)
    .default(500),
});

export const TopicNamesAnswer = z.object({
  latest_week: z.string().nullable().describe('The latest week the dataset holds (its Monday); null when it has no topics'),
  total: z.number().int().min(0).describe('Topics matching `q` (all of them may be more than `names` lists)'),
  names: z.array(
    z.object({
      name: z.string(),
      accounts: z.number().int().min(0).describe('Accounts with a score on the topic'),
      surging: z.number().int().min(0).describe('Accounts surging on it (score ≥ 60) in the latest week'),
      followed: z.boolean().describe('Whether the customer follows it'),
    }),
  ),
});
export type TopicNamesAnswer = z.infer<typeof TopicNamesAnswer>;
