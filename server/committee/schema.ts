/**
 * The shapes of the account page's People section (routes.ts): the buying committee of an account and
 * whether the signed-in person may reveal one of its people. A person is a People Search profile
 * (server/people/schema.ts: whether an email, a phone, a mobile exist — never the values) with the
 * catalog company it belongs to, since a domain may name several companies (domains.csv).
 */
import { z } from 'zod';
import { nullableText } from '../http/null-rule.ts';
import { PeopleProfile } from '../people/schema.ts';

export const CommitteePerson = PeopleProfile.extend({ company_id: z.string().min(1) }).strict();
export type CommitteePerson = z.infer<typeof CommitteePerson>;

/** The people of one function at one seniority level (`level` null: a title the classifier cannot read). */
export const CommitteeCell = z.object({ level: nullableText(), people: z.array(CommitteePerson) }).strict();
export type CommitteeCell = z.infer<typeof CommitteeCell>;

/** One function's people by seniority, most senior first (`function` null: no function recognised). */
export const CommitteeGroup = z.object({ function: nullableText(), count: z.number().int().min(1), levels: z.array(CommitteeCell) }).strict();
export type CommitteeGroup = z.infer<typeof CommitteeGroup>;

export const RevealRight = z
  .object({
    /** Whether this principal may reveal here: the `people:reveal` permission and the customer's people add-on. */
    allowed: z.boolean(),
    /** Why not, in words (null when allowed). */
    reason: z.string().nullable(),
  })
  .strict();
export type RevealRight = z.infer<typeof RevealRight>;

export const CommitteeAnswer = z
  .object({
    customer_id: z.string(),
    company_id: z.string(),
    /** The account's domain, whose people are listed (null: the company has none; then its own people). */
    domain: nullableText(),
    /** The catalog companies at that domain whose people are listed, the account first. */
    companies: z.array(z.object({ company_id: z.string(), name: nullableText() }).strict()),
    /** People at the domain (counted up to the scan limit). */
    total: z.number().int().min(0),
    /** People in `groups`: the most senior ones when there are more than the answer holds. */
    shown: z.number().int().min(0),
    /** Whether people were left out (`shown < total`, or the domain has more people than are read). */
    truncated: z.boolean(),
    /** The seniority levels, most senior first: the columns of the committee. */
    levels: z.array(z.string()),
    groups: z.array(CommitteeGroup),
    reveal: RevealRight,
  })
  .strict();
export type CommitteeAnswer = z.infer<typeof CommitteeAnswer>;
