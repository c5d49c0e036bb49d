/**
 * The alerts API's bodies and answers (./routes.ts), one zod schema each: validation, type and the OpenAPI
 * document's shapes. The records they carry are core/alert-records.ts's.
 */
import { z } from 'zod';
import { AlertDestination, AlertFilter, AlertTrigger, OwnerRow, RouteToOwner, type StoredAlert, TerritoryRule } from '../../core/alert-records.ts';

/** `true` is `{}` (beside the channel, no fallback addresses). */
const RouteToOwnerInput = z.union([z.boolean(), RouteToOwner]);

export const NewAlert = z
  .object({
    name: z.string().trim().min(1).max(120),
    trigger: AlertTrigger,
    filter: AlertFilter.default({}),
    destination: AlertDestination,
    route_to_owner: RouteToOwnerInput.optional(),
    paused: z.boolean().default(false),
  })
  .strict();
export type NewAlert = z.infer<typeof NewAlert>;

/** PATCH …/alerts/:alertId: only the fields given (`paused: true` pauses it). */
export const AlertPatch = z
  .object({
    name: NewAlert.shape.name,
    trigger: AlertTrigger,
    filter: AlertFilter,
    destination: AlertDestination,
    route_to_owner: RouteToOwnerInput.nullable(),
    paused: z.boolean(),
  })
  .partial()
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: 'nothing to change: give at least one field' });
export type AlertPatch = z.infer<typeof AlertPatch>;

/** What `route_to_owner` is kept as: null for none. */
export function routing(input: z.infer<typeof RouteToOwnerInput> | null | undefined): StoredAlert['route_to_owner'] {
  if (input === undefined || input === null || input === false) return null;
  return input === true ? { instead_of_channel: false } : input;
}

/** An alert as the API answers it: a Slack/Teams URL masked (it is the channel's credential), never a signing secret. */
export const AlertView = z.object({
  id: z.string(),
  customer_id: z.string(),
  name: z.string(),
  trigger: AlertTrigger,
  filter: AlertFilter,
  destination: z.object({
    type: z.enum(['slack', 'teams', 'email', 'webhook']),
    url: z.string().optional().describe('Slack and Teams: masked; webhook: as given'),
    to: z.array(z.string()).optional(),
  }),
  route_to_owner: RouteToOwner.nullable(),
  paused: z.boolean(),
  created_at: z.string(),
  created_by: z.string().nullable(),
});
export type AlertView = z.infer<typeof AlertView>;

export const OwnersView = z.object({
  customer_id: z.string(),
  owners: z.array(OwnerRow),
  territories: z.array(TerritoryRule),
  updated_at: z.string().nullable(),
});

export const OwnersReport = z.object({ owners: z.number().int(), territories: z.number().int(), updated_at: z.string() });

/** POST …/alerts/:alertId/test: the sample delivery put in the outbox (sent by the dispatcher, in the delivery log). */
export const TestAlertAnswer = z.object({
  delivery_id: z.string().nullable(),
  event_id: z.string(),
  company_id: z.string(),
});
