/**
 * The onboarding checklist a new customer's first sign-in lands on: install the snippet → installed (a tag
 * of theirs was seen on a site) → first identified visit → first segment → first webhook (or alert).
 * Pure: what the stores say goes in as `OnboardingFacts` (routes.ts reads them), the steps come out; the
 * console shows them (server/console/ui/OnboardingPage.tsx) and lands users on them until all are done.
 */
import { z } from 'zod';
import { type ConsolePage, hashForCustomer } from '../console/customer-link.ts';

/** What the checklist is computed from, as read from the state store, the visit store and the outbox. */
export interface OnboardingFacts {
  customer_id: string;
  /** Web tags the customer has (created, disabled ones included). */
  tags: number;
  /** Whether any of them was seen on a site (a tag sighting: the page view or lookup of an installed snippet). */
  tag_seen: boolean;
  /** Whether the visit store holds an identified page view (an account matched) within its retention. */
  identified_visit: boolean;
  segments: number;
  webhooks: number;
}

export const ONBOARDING_STEP_IDS = ['install', 'identified_visit', 'segment', 'webhook'] as const;

export const OnboardingStep = z.object({
  id: z.enum(ONBOARDING_STEP_IDS),
  label: z.string(),
  done: z.boolean(),
  /** Where in the console the step is done (a console link: `/console/#customer=…&page=…`). */
  href: z.string(),
});
export type OnboardingStep = z.infer<typeof OnboardingStep>;

export const OnboardingStatus = z.object({
  customer_id: z.string(),
  steps: z.array(OnboardingStep),
  /** Every step done: the console no longer lands on the checklist. */
  complete: z.boolean(),
});
export type OnboardingStatus = z.infer<typeof OnboardingStatus>;

const link = (customerId: string, page: ConsolePage) => `/console/${hashForCustomer(customerId, page)}`;

export function onboardingSteps(facts: OnboardingFacts): OnboardingStatus {
  const at = (page: ConsolePage) => link(facts.customer_id, page);
  const steps: OnboardingStep[] = [
    {
      id: 'install',
      label: facts.tags === 0 ? 'Create a web tag and paste its snippet into your site' : 'Paste the snippet into every page of your site',
      done: facts.tag_seen,
      href: at('tags'),
    },
    { id: 'identified_visit', label: 'See your first identified visit', done: facts.identified_visit, href: at('visitors') },
    { id: 'segment', label: 'Create your first segment', done: facts.segments > 0, href: at('segments') },
    { id: 'webhook', label: 'Add a webhook for visits and hot-account alerts', done: facts.webhooks > 0, href: at('webhooks') },
  ];
  return { customer_id: facts.customer_id, steps, complete: steps.every((s) => s.done) };
}
