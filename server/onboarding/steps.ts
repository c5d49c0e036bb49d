/**
 * The onboarding checklist a new customer's first sign-in lands on: install the snippet → installed (a tag
 * of theirs was seen on a site) → first identified visit → first segment → first webhook (or alert). Ahead
 * of them, for those who may fix it (`integrations:write`), one step per CRM connection that needs
 * attention (a revoked or wrong credential: its sync is paused): reconnect it on the Integrations page.
 * Such a step is never done while the connection needs attention, so the checklist is not complete and
 * its owners and admins land on it until the connection is fixed.
 * Pure: what the stores say goes in as `OnboardingFacts` (routes.ts reads them) with what the reader may do,
 * the steps of their role come out; the console shows them (server/console/ui/OnboardingPage.tsx) and lands users on them until all are done.
 */
import { z } from 'zod';
import { type ConsolePage, hashForCustomer } from '../../core/console-links.ts';
import type { CrmProvider } from '../../core/crm-records.ts';
import type { Permission } from '../../core/roles.ts';

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
  /** The customer's CRM connections that need attention, with the provider's message (absent: none). */
  crm_attention?: { provider: CrmProvider; message: string | null }[];
}

export const ONBOARDING_STEP_IDS = ['install', 'identified_visit', 'segment', 'webhook'] as const;
/** The steps of CRM connections that need attention, one per CRM. */
export const CRM_ATTENTION_STEP_IDS = ['hubspot_attention', 'salesforce_attention'] as const;

export const OnboardingStep = z.object({
  id: z.enum([...CRM_ATTENTION_STEP_IDS, ...ONBOARDING_STEP_IDS]),
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

/** Whether the one the checklist is for may do this (their role's permissions; the operator may do all). */
export type May = (permission: Permission) => boolean;

interface StepDef {
  id: OnboardingStep['id'];
  /**
   * What doing the step takes. The one place that decides which steps a role is shown: the checklist never
   * asks anyone for a step their permissions cannot do (a marketer is not asked to add a webhook).
   */
  needs: Permission;
  label(facts: OnboardingFacts, may: May): string;
  done(facts: OnboardingFacts): boolean;
  page: ConsolePage;
}

const STEPS: readonly StepDef[] = [
  {
    id: 'install',
    // Pasting the snippet takes only seeing it (Web tags page); creating the tag is an admin's when none exists.
    needs: 'tags:read',
    label: (f, may) =>
      f.tags > 0
        ? 'Paste the snippet into every page of your site'
        : may('tags:write')
          ? 'Create a web tag and paste its snippet into your site'
          : 'Ask an admin of your workspace for a web tag, then paste its snippet into your site',
    done: (f) => f.tag_seen,
    page: 'tags',
  },
  { id: 'identified_visit', needs: 'reports:read', label: () => 'See your first identified visit', done: (f) => f.identified_visit, page: 'visitors' },
  { id: 'segment', needs: 'segments:write', label: () => 'Create your first segment', done: (f) => f.segments > 0, page: 'segments' },
  {
    id: 'webhook',
    needs: 'webhooks:write',
    label: () => 'Add a webhook for visits and hot-account alerts',
    done: (f) => f.webhooks > 0,
    page: 'webhooks',
  },
];

const CRM_NAMES: Readonly<Record<CrmProvider, string>> = { hubspot: 'HubSpot', salesforce: 'Salesforce' };
/** Characters of the provider's message a step's label quotes. */
const ATTENTION_MESSAGE_CHARS = 300;

/** The steps of connections that need attention, for those who may reconnect them. */
function attentionSteps(facts: OnboardingFacts, may: May): OnboardingStep[] {
  if (!may('integrations:write')) return [];
  return (facts.crm_attention ?? []).map(({ provider, message }) => {
    const said = message?.trim()
      ? `: ${message.trim().length > ATTENTION_MESSAGE_CHARS ? `${message.trim().slice(0, ATTENTION_MESSAGE_CHARS - 1)}…` : message.trim()}`
      : '';
    return {
      id: `${provider}_attention` as const,
      label: `${CRM_NAMES[provider]} needs attention${said} — reconnect in Integrations`,
      done: false,
      href: link(facts.customer_id, 'integrations'),
    };
  });
}

/** The steps `may` allows, in order (connections that need attention first); complete when each of those is done. */
export function onboardingSteps(facts: OnboardingFacts, may: May): OnboardingStatus {
  const steps: OnboardingStep[] = [
    ...attentionSteps(facts, may),
    ...STEPS.filter((s) => may(s.needs)).map((s) => ({
      id: s.id,
      label: s.label(facts, may),
      done: s.done(facts),
      href: link(facts.customer_id, s.page),
    })),
  ];
  return { customer_id: facts.customer_id, steps, complete: steps.every((s) => s.done) };
}
