import { describe, expect, it } from 'vitest';
import { ONBOARDING_STEP_IDS, type OnboardingFacts, onboardingSteps } from './steps.ts';

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
});
