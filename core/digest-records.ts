/**
 * A user's email digest settings (`GET|PATCH /auth/me/notifications`, the console's Notifications page):
 * off, daily or weekly, at a local hour in the user's IANA time zone, about every visiting account, the
 * accounts the user owns, or those in some of the customer's segments and lists. In the neutral core: the
 * server keeps and sends them (server/digests/), the console edits them.
 */
import { z } from 'zod';

export const DIGEST_FREQUENCIES = ['off', 'daily', 'weekly'] as const;
export const DigestFrequency = z.enum(DIGEST_FREQUENCIES);
export type DigestFrequency = z.infer<typeof DigestFrequency>;

/** Whether the runtime knows the zone (Intl: an IANA name or an alias it accepts, such as `UTC`). */
export function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const TimeZone = z.string().min(1).max(64).refine(knownTimeZone, { message: 'an IANA time zone such as Europe/Berlin or America/Los_Angeles' });

/**
 * Which visiting accounts a digest is about: every one (`all`), those the user owns (`my_accounts`: the
 * CRM's owner of the account, and the customer's owners list when there is one), or those in any of the
 * named segments (ids) and account lists (ids, `hot` and `excluded` included).
 */
export const DigestScope = z.discriminatedUnion('type', [
  z.object({ type: z.literal('all') }).strict(),
  z.object({ type: z.literal('my_accounts') }).strict(),
  z
    .object({
      type: z.literal('segments'),
      segments: z.array(z.number().int().positive()).max(50).default([]),
      lists: z.array(z.string().min(1).max(64)).max(50).default([]),
    })
    .strict()
    .refine((s) => s.segments.length + s.lists.length > 0, { message: 'name at least one segment or list' }),
]);
export type DigestScope = z.infer<typeof DigestScope>;

export const DigestSettings = z.object({
  digest: DigestFrequency,
  /** The local hour (0–23) the digest is sent at: a daily one every day, a weekly one on Mondays. */
  hour: z.number().int().min(0).max(23),
  time_zone: TimeZone,
  scope: DigestScope,
});
export type DigestSettings = z.infer<typeof DigestSettings>;

/** What a user has before setting anything: no digest (8 o'clock UTC, every account, once turned on). */
export const DEFAULT_DIGEST_SETTINGS: DigestSettings = Object.freeze({ digest: 'off', hour: 8, time_zone: 'UTC', scope: { type: 'all' } }) as DigestSettings;

/** A change: each field optional, unknown ones refused. */
export const DigestSettingsPatch = DigestSettings.partial().strict();
export type DigestSettingsPatch = z.infer<typeof DigestSettingsPatch>;
