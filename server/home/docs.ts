/** The OpenAPI operation of the console's home page (routes.ts), over the shared kit. */
import { z } from 'zod';
import { BUYING_STAGES } from '../../core/vocabulary.ts';
import { admin, adminErrors, idParam, json, schema } from '../openapi/kit.ts';
import { DEFAULT_HOME_DAYS, MAX_HOME_DAYS, STAGE_ACCOUNTS, TOP_ACCOUNTS } from './summary.ts';

const Stage = z.enum(BUYING_STAGES);

const Figures = z.object({
  from: z.string(),
  to: z.string(),
  identified_accounts: z.number().int().describe('Accounts with an identified page view in the period (the Visitors report’s `totals.accounts`)'),
  new_accounts: z.number().int().describe('Accounts whose first page view the store remembers falls in the period'),
  became_hot: z.number().int().describe('Scored accounts whose highest buying stage reached Decision or Purchase during the period'),
  stage_moves: z.number().int().describe('Scored accounts whose highest buying stage is higher at the period’s end than at its start'),
  segment_entries: z
    .number()
    .int()
    .nullable()
    .describe('Segments entered (as `segment.entered` sees them); null: not counted, no webhook or Slack endpoint of the customer needs segment facts'),
  page_views: z.number().int(),
  identified_page_views: z.number().int(),
  anonymous_page_views: z.number().int(),
  match_rate: z.number().nullable().describe('identified_page_views / page_views (0–1); null without page views'),
});

const Account = z.object({
  company_id: z.string(),
  name: z.string().nullable(),
  domain: z.string().nullable(),
  page_views: z.number().int().describe('In the period (the account page’s `totals.page_views` for the same range)'),
  last_seen: z.string(),
  stage: Stage.nullable().describe('Highest buying stage at the period’s end over the customer’s products; null without products'),
  stage_before: Stage.nullable().describe('The same at the period’s start'),
  hot: z.boolean().describe('Stage Decision or Purchase now'),
  hot_list: z.boolean().describe('On the customer’s hot list'),
  new: z.boolean().describe('First seen in the period'),
  reasons: z.array(z.enum(['hot', 'hot_list', 'stage', 'new', 'page_views'])).describe('Why to act, most telling first'),
  link: z.string().describe('The account page in the console'),
});

const Home = z.object({
  customer_id: z.string(),
  current: Figures,
  previous: Figures.describe('The period of the same length just before'),
  accounts: z.array(Account).max(TOP_ACCOUNTS),
  daily: z.array(z.object({ day: z.string(), identified: z.number().int(), anonymous: z.number().int() })),
  scored_accounts: z.number().int().describe(`Visiting accounts scored for stages (the ${STAGE_ACCOUNTS} most active at most)`),
});

export const homeDocs = {
  get: admin('getHome', 'What changed with the customer’s accounts: this period against the one before it (the console’s Home)', {
    description: [
      `The period is \`from\`–\`to\` (UTC days; default the last ${DEFAULT_HOME_DAYS} days up to today, at most ${MAX_HOME_DAYS}); the previous period has the same length and ends the day before \`from\`.`,
      'Read from aggregates precomputed as page views are recorded, never from raw page views nor every account of the period: per period one read of its days’ rollup (identified and anonymous page views, accounts first seen, segments entered, and the day’s accounts by days since their previous visit, which counts distinct accounts over the period exactly)',
      `and its ${STAGE_ACCOUNTS} most active accounts from each day’s accounts ranked by page views; then, for those, each one’s page views over the scoring window. The work is bounded by the period’s days and ${STAGE_ACCOUNTS} accounts, not by the catalog, the accounts that visited or the page views.`,
      '**Definitions.** A buying stage is the scoring model’s (`buying_stage` of identification), the highest over the customer’s products (none: null, and no moves).',
      'The stage at the period’s start is scored at its first midnight from the page views before it; at its end, at its last moment (or now, when earlier) from those up to it.',
      'A *stage move* is a higher stage at the end; an account *became hot* when its stage reached Decision or Purchase in the period. The hot list has no dates: listed accounts are flagged (`hot_list`), not counted as becoming hot.',
      'Stage figures count the scored accounts only (`scored_accounts`). *Segment entries* are counted where `segment.entered` is decided: while the customer has an endpoint that needs segment facts.',
      `The accounts to act on (at most ${TOP_ACCOUNTS}, excluded accounts left out) are the scored ones that became hot, are on the hot list, moved a stage or are new, in that order of weight, then by stage and page views.`,
      'The figures agree with `getVisitsReport` (accounts, identified and anonymous page views, `daily`) and `getAccount` (an account’s page views) for the same days.',
    ].join(' '),
    parameters: [
      idParam('customer'),
      { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'First UTC day of the period' },
      { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'Last UTC day of the period (default: today)' },
    ],
    responses: {
      200: { description: 'The period and the one before it', content: json(schema(Home)) },
      ...adminErrors('read', 422),
    },
  }),
};
