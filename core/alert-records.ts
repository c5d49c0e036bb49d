/**
 * Alerts (server/alerts/): what a marketer sets up — a trigger, filters, a destination, routing to the
 * account's owner — and the owners list and territory rules that routing reads. Records here so that the
 * outbox (which stores an alert as one of its endpoints: server/webhooks/schema.ts EndpointSettings.alert),
 * the planner and dispatcher (server/webhooks/), the alerts API and the state export share one shape.
 */
import { z } from 'zod';
import { Email } from './user-records.ts';
import { BUYING_STAGES, EMPLOYEE_RANGES } from './vocabulary.ts';

/** The stages an account can reach (Target is where every account starts: nothing is reached there). */
export const REACHABLE_STAGES = BUYING_STAGES.filter((s) => s !== 'Target') as Exclude<(typeof BUYING_STAGES)[number], 'Target'>[];

/** `/pricing*`: a path glob (core/glob.ts) where `*` matches any run of characters; query strings never count. */
export const PathPattern = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^\/[^\s?#]*$/, 'a path pattern starts with "/" and has no spaces, query or fragment (e.g. /pricing*)');

export const ALERT_TRIGGERS = ['segment_entered', 'hot', 'stage_reached', 'first_visit', 'visited'] as const;
export type AlertTriggerType = (typeof ALERT_TRIGGERS)[number];

/** When an alert fires: once per account, trigger and UTC day at most (the outbox's dedupe key). */
export const AlertTrigger = z.discriminatedUnion('type', [
  /** The account enters this segment (it was not in it at its previous view). */
  z.object({ type: z.literal('segment_entered'), segment: z.number().int().min(0) }).strict(),
  /** The account is hot: one of the customer's hot accounts, or a view of one of `hot_paths`. */
  z.object({ type: z.literal('hot'), hot_paths: z.array(PathPattern).max(50).default([]) }).strict(),
  /** The account's buying stage for the product reaches `stage` (or later) for the first time svc sees it. */
  z.object({ type: z.literal('stage_reached'), product: z.string().trim().min(1).max(100), stage: z.enum(REACHABLE_STAGES) }).strict(),
  /** The account visits after `days` days without a visit (its first view of the day, no view in the days before). */
  z.object({ type: z.literal('first_visit'), days: z.number().int().min(1).max(90) }).strict(),
  /** The account views a page matching `path` (core/glob.ts). */
  z.object({ type: z.literal('visited'), path: PathPattern }).strict(),
]);
export type AlertTrigger = z.infer<typeof AlertTrigger>;

/** Which accounts' triggers count: all given conditions hold (none: every account). */
export const AlertFilter = z
  .object({
    /** The account is in any of these segments. */
    segments: z.array(z.number().int().min(0)).min(1).max(50).optional(),
    /** The account is on any of these account lists. */
    lists: z.array(z.string().min(1).max(200)).min(1).max(50).optional(),
    /** The account's page views in this visit reach this many. */
    min_page_views: z.number().int().min(1).max(50).optional(),
    /** Only accounts with an owner (`with`) or without one (`without`): the owner routing would find. */
    owner: z.enum(['with', 'without']).optional(),
  })
  .strict();
export type AlertFilter = z.infer<typeof AlertFilter>;

export const ALERT_DESTINATIONS = ['slack', 'teams', 'email', 'webhook'] as const;
export type AlertDestinationType = (typeof ALERT_DESTINATIONS)[number];

const Url = z.string().trim().min(1).max(2048);
const Recipients = z.array(Email).min(1).max(20);

/** Where the alert goes (its channel): a Slack or Teams channel's webhook URL, mail addresses, or signed JSON. */
export const AlertDestination = z.discriminatedUnion('type', [
  z.object({ type: z.literal('slack'), url: Url }).strict(),
  z.object({ type: z.literal('teams'), url: Url }).strict(),
  z.object({ type: z.literal('email'), to: Recipients }).strict(),
  z.object({ type: z.literal('webhook'), url: Url }).strict(),
]);
export type AlertDestination = z.infer<typeof AlertDestination>;

/**
 * Routing to the account's owner (owner from the CRM, the owners list, then the territory rules: the first
 * that names one). An owner who is a user of the workspace is mailed; the channel message @mentions an owner
 * with a Slack member id (Slack) or a Teams mention (Teams). No owner, or an owner who is not a user: the
 * `fallback` addresses are mailed instead (counted either way).
 */
export const RouteToOwner = z
  .object({
    /** The owner instead of the channel: the channel hears only of accounts without a reachable owner. */
    instead_of_channel: z.boolean().default(false),
    fallback: z.object({ to: Recipients }).strict().optional(),
  })
  .strict();
export type RouteToOwner = z.infer<typeof RouteToOwner>;

/** An alert as the outbox keeps it in its endpoint's settings (the destination's URL is the endpoint's). */
export const StoredAlert = z.object({
  name: z.string(),
  trigger: AlertTrigger,
  filter: AlertFilter,
  destination_type: z.enum(ALERT_DESTINATIONS),
  /** Email destinations: the addresses (others keep their URL as the endpoint's). */
  to: z.array(z.string()).default([]),
  route_to_owner: RouteToOwner.nullable(),
  paused: z.boolean(),
  /** Who made it (a user's email, or `operator`), for the console. */
  created_by: z.string().nullable().default(null),
});
export type StoredAlert = z.infer<typeof StoredAlert>;

/** How a delivery of an alert goes out (its body's `alert` part, beside the event): the channel or a mail. */
export const AlertRoute = z.object({
  alert_id: z.string(),
  name: z.string(),
  trigger: z.enum(ALERT_TRIGGERS),
  /** What happened, in words ("entered Enterprise", "reached Decision for CDP"). */
  happened: z.string(),
  /** The account's segments (names) with the view, for the message. */
  segments: z.array(z.string()).default([]),
  /** `channel`: the endpoint's destination; `mail`: these addresses (the owner, or the fallback). */
  via: z.enum(['channel', 'mail']),
  to: z.array(z.string()).default([]),
  /** Whom the channel message @mentions. */
  mention: z
    .object({ slack: z.string().nullable(), teams: z.object({ id: z.string(), name: z.string() }).nullable() })
    .nullable()
    .default(null),
  owner_email: z.string().nullable().default(null),
  /** Why a mail went to the fallback addresses (or nowhere): the owner routing found no reachable owner. */
  fallback: z.enum(['no_owner', 'not_a_user']).nullable().default(null),
  /** A "send test": labelled as such wherever it arrives and in the delivery log. */
  test: z.boolean().default(false),
});
export type AlertRoute = z.infer<typeof AlertRoute>;

/** A Slack member id (`U…`/`W…`): only these become an @mention. */
export const SlackMemberId = z.string().regex(/^[UW][A-Z0-9]{2,20}$/, 'a Slack member id looks like U0123ABCD');

/** One account's owner (the owners list: a row per account). */
export const OwnerRow = z
  .object({
    /** `company:<id>` or `domain:<domain>`. */
    key: z.string().min(3).max(300),
    owner_email: Email,
    slack_member_id: SlackMemberId.nullable(),
    /** A Teams user (UPN or Entra object id) to @mention. */
    teams_mention: z.string().min(1).max(200).nullable(),
  })
  .strict();
export type OwnerRow = z.infer<typeof OwnerRow>;

/** A territory: accounts matching every given field go to `owner_email` (rules in order, the first match wins). */
export const TerritoryRule = z
  .object({
    country: z.array(z.string().min(1).max(100)).max(100).optional(),
    region: z.array(z.string().min(1).max(100)).max(100).optional(),
    industry: z.array(z.string().min(1).max(200)).max(100).optional(),
    size: z.array(z.enum(EMPLOYEE_RANGES)).max(EMPLOYEE_RANGES.length).optional(),
    owner_email: Email,
    slack_member_id: SlackMemberId.nullable(),
    teams_mention: z.string().min(1).max(200).nullable(),
  })
  .strict();
export type TerritoryRule = z.infer<typeof TerritoryRule>;

/** Rows of an owners list and territory rules a customer may have. */
export const MAX_OWNER_ROWS = 20_000;
export const MAX_TERRITORY_RULES = 500;
