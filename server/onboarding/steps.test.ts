import { describe, expect, it } from 'vitest';
import type { ConsolePage } from '../../core/console-links.ts';
import { ROLES, type Role, roleMay } from '../../core/roles.ts';
import { PAGE_PERMISSION } from '../console/permissions-view.ts';
import { ONBOARDING_STEP_IDS, type OnboardingFacts, onboardingSteps as stepsFor } from './steps.ts';

/** The operator's checklist (every permission): every step. */
const onboardingSteps = (facts: OnboardingFacts) => stepsFor(facts, () => true);
const ofRole = (role: Role, facts: OnboardingFacts) => stepsFor(facts, (p) => roleMay(role, p));

const NEW: OnboardingFacts = { customer_id: 'newco', tags: 0, tag_seen: false, identified_visit: false, segments: 0, webhooks: 0 };

const done = (facts: OnboardingFacts) => Object.fromEntries(onboardingSteps(facts).steps.map((s) => [s.id, s.done]));

describe('onboardingSteps', () => {
  it('a new customer has every step to do, in order, each linking to its console page', () => {
    const status = onboardingSteps(NEW);
    expect(status.steps.map((s) => s.id)).toEqual([...ONBOARDING_STEP_IDS]);
    expect(status.steps.every((s) => !s.done)).toBe(true);
    expect(status.complete).toBe(false);
    expect(status.steps.map((s) => s.href)).toEqual([
      '/console/#customer=newco&page=tags',
      '/console/#customer=newco&page=visitors',
      '/console/#customer=newco&page=segments',
      '/console/#customer=newco&page=webhooks',
    ]);
  });

  it('without a tag the first step says to create one; with one, to paste its snippet', () => {
    expect(onboardingSteps(NEW).steps[0]!.label).toMatch(/^Create a web tag/);
    expect(onboardingSteps({ ...NEW, tags: 1 }).steps[0]!.label).toMatch(/^Paste the snippet/);
  });

  it('ticks each step from its own fact only', () => {
    expect(done({ ...NEW, tags: 2, tag_seen: true })).toEqual({ install: true, identified_visit: false, segment: false, webhook: false });
    expect(done({ ...NEW, identified_visit: true })).toEqual({ install: false, identified_visit: true, segment: false, webhook: false });
    expect(done({ ...NEW, segments: 3 })).toEqual({ install: false, identified_visit: false, segment: true, webhook: false });
    expect(done({ ...NEW, webhooks: 1 })).toEqual({ install: false, identified_visit: false, segment: false, webhook: true });
  });

  it('is complete only when every step is done', () => {
    const all: OnboardingFacts = { ...NEW, tags: 1, tag_seen: true, identified_visit: true, segments: 1, webhooks: 1 };
    expect(onboardingSteps(all).complete).toBe(true);
    for (const missing of [{ tag_seen: false }, { identified_visit: false }, { segments: 0 }, { webhooks: 0 }]) {
      expect(onboardingSteps({ ...all, ...missing }).complete).toBe(false);
    }
  });

  it('escapes a customer id in its links', () => {
    expect(onboardingSteps({ ...NEW, customer_id: 'a b&c' }).steps[2]!.href).toBe('/console/#customer=a+b%26c&page=segments');
  });

  it('asks a role only for the steps its permissions can do: no webhook step for a marketer, no segment for a viewer', () => {
    const ids = (role: Role) => ofRole(role, { ...NEW, tags: 1 }).steps.map((s) => s.id);
    expect(ids('owner')).toEqual(['install', 'identified_visit', 'segment', 'webhook']);
    expect(ids('admin')).toEqual(['install', 'identified_visit', 'segment', 'webhook']);
    expect(ids('marketer')).toEqual(['install', 'identified_visit', 'segment']);
    expect(ids('viewer')).toEqual(['install', 'identified_visit']);
    // Nor does a step link to a console page the role cannot open.
    for (const role of ROLES) {
      for (const step of ofRole(role, NEW).steps) {
        const page = new URLSearchParams(step.href.split('#')[1]).get('page') as ConsolePage;
        expect(roleMay(role, PAGE_PERMISSION[page]), `${role}: ${step.id} → ${page}`).toBe(true);
      }
    }
  });

  it('is complete for a role when the steps it is asked for are done (a marketer never waits on a webhook)', () => {
    const theirs: OnboardingFacts = { ...NEW, tags: 1, tag_seen: true, identified_visit: true, segments: 1, webhooks: 0 };
    expect(ofRole('marketer', theirs).complete).toBe(true);
    expect(ofRole('admin', theirs).complete).toBe(false);
  });

  it('puts a CRM connection that needs attention first, with the provider’s message and a link to Integrations, never done', () => {
    const broken: OnboardingFacts = {
      ...NEW,
      tags: 1,
      tag_seen: true,
      identified_visit: true,
      segments: 1,
      webhooks: 1,
      crm_attention: [{ provider: 'hubspot', message: 'The access token was revoked (401)' }],
    };
    const status = onboardingSteps(broken);
    expect(status.steps[0]).toEqual({
      id: 'hubspot_attention',
      label: 'HubSpot needs attention: The access token was revoked (401) — reconnect in Integrations',
      done: false,
      href: '/console/#customer=newco&page=integrations',
    });
    expect(status.steps.slice(1).every((s) => s.done)).toBe(true);
    expect(status.complete).toBe(false);
    expect(onboardingSteps({ ...broken, crm_attention: [] }).complete).toBe(true);
    const both = onboardingSteps({
      ...broken,
      crm_attention: [
        { provider: 'hubspot', message: null },
        { provider: 'salesforce', message: `${'x'.repeat(400)}` },
      ],
    }).steps;
    expect(both[0]!.label).toBe('HubSpot needs attention — reconnect in Integrations');
    expect(both[1]!.id).toBe('salesforce_attention');
    expect(both[1]!.label).toBe(`Salesforce needs attention: ${'x'.repeat(299)}… — reconnect in Integrations`);
  });

  it('shows a connection that needs attention only to those who may reconnect it (integrations:write: owner, admin)', () => {
    const broken: OnboardingFacts = { ...NEW, crm_attention: [{ provider: 'salesforce', message: 'expired' }] };
    const has = (role: Role) => ofRole(role, broken).steps.some((s) => s.id === 'salesforce_attention');
    expect(ROLES.filter(has)).toEqual(ROLES.filter((r) => roleMay(r, 'integrations:write')));
    expect(has('owner')).toBe(true);
    expect(has('admin')).toBe(true);
    expect(has('marketer')).toBe(false);
    expect(has('viewer')).toBe(false);
    for (const role of ROLES.filter(has)) expect(roleMay(role, PAGE_PERMISSION.integrations)).toBe(true);
  });

  it('asks one who cannot create a web tag to ask for one, and one who can to create it', () => {
    expect(ofRole('admin', NEW).steps[0]!.label).toMatch(/^Create a web tag/);
    expect(ofRole('marketer', NEW).steps[0]!.label).toMatch(/^Ask an admin of your workspace for a web tag/);
  });
});
