/**
 * The reasons the tag gives for making no lookup (`svc:error` with status 0, no request) are exactly the
 * `SvcRefusal` union of the public types (tag/src/types.ts, copied to dist/tag/svc.d.ts): the built bundle,
 * run over every combination of stored opt-out, Global Privacy Control, the `gpc` option and the consent
 * state (at start and changed by commands afterwards), emits each declared reason and nothing else.
 * The compiler keeps the tag's side (`satisfies SvcRefusal` in tag/src/tag.ts); this keeps both ways.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORE_FEATURES, EVERY_FEATURE } from '../core/tag-features.ts';
import { bundleTag } from './build.ts';
import type { SvcCommand } from './src/types.ts';

/** The string literals of `export type SvcRefusal = …;` in the declarations the build ships. */
function declaredRefusals(): string[] {
  const source = readFileSync(join(import.meta.dirname, 'src/types.ts'), 'utf8');
  const union = /^export type SvcRefusal =([^;]+);/m.exec(source)?.[1];
  expect(union, 'SvcRefusal is declared in tag/src/types.ts').toBeDefined();
  return [...union!.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
}

interface Scenario {
  optedOut: boolean;
  gpc: boolean;
  gpcOption: false | undefined;
  consent: 'granted' | 'denied' | 'pending' | undefined;
  /** Commands pushed after the bundle ran. */
  later: SvcCommand[];
}

/** The `svc:error` messages of status 0 the bundle dispatches in a scenario, and how many requests it made. */
function run(js: string, s: Scenario): { refusals: string[]; requests: number } {
  const refusals: string[] = [];
  const doc = new EventTarget() as EventTarget & Record<string, unknown>;
  doc.currentScript = { src: 'https://svc.example.com/tag/v1/svc.js' };
  doc.querySelectorAll = () => [];
  doc.referrer = '';
  doc.readyState = 'complete';
  doc.addEventListener('svc:error', (e) => {
    const { status, message } = (e as CustomEvent).detail;
    if (status === 0) refusals.push(message);
  });
  const stored = new Map<string, string>(s.optedOut ? [['svc:optout', '1']] : []);
  const storage = {
    getItem: (k: string) => stored.get(k) ?? null,
    setItem: (k: string, v: string) => void stored.set(k, v),
    removeItem: (k: string) => void stored.delete(k),
  };
  let requests = 0;
  const win: Record<string, unknown> = {
    svc: [['init', { tag: 't1', ...(s.gpcOption === false ? { gpc: false } : {}), ...(s.consent ? { consent: s.consent } : {}) }]],
    history: { pushState() {}, replaceState() {} },
    addEventListener() {},
  };
  const context = vm.createContext({
    window: win,
    document: doc,
    location: new URL('https://www.acme.example/'),
    navigator: { globalPrivacyControl: s.gpc, sendBeacon: () => true },
    crypto: { getRandomValues: <T extends Uint8Array>(a: T) => a.fill(7) },
    performance: { now: () => 50 },
    // A request never settles here: only refusals (no request) are of interest.
    fetch: () => {
      requests++;
      return new Promise(() => {});
    },
    localStorage: storage,
    sessionStorage: storage,
    URLSearchParams,
    URL,
    CustomEvent,
    MutationObserver: class {
      observe() {}
    },
    setTimeout: () => 0,
    console: { error() {}, log() {} },
  });
  vm.runInContext(js, context);
  for (const command of s.later) (win.svc as { push(c: SvcCommand): void }).push(command);
  return { refusals, requests };
}

function* scenarios(): Generator<Scenario> {
  const laters: SvcCommand[][] = [[], [['optOut', true]], [['consent', 'denied']], [['consent', 'pending']], [['consent', 'granted']], [['optOut', false]]];
  for (const optedOut of [false, true])
    for (const gpc of [false, true])
      for (const gpcOption of [undefined, false] as const)
        for (const consent of [undefined, 'granted', 'denied', 'pending'] as const)
          for (const later of laters) yield { optedOut, gpc, gpcOption, consent, later };
}

describe.each([
  ['the core variant', CORE_FEATURES],
  ['the every-feature variant (svc.js)', EVERY_FEATURE],
])('refusals of %s', (_name, features) => {
  let js = '';
  beforeAll(async () => {
    js = await bundleTag(features);
  });

  it('are exactly the declared SvcRefusal reasons', () => {
    const declared = declaredRefusals();
    expect(declared).toEqual(['opted out', 'gpc', 'consent denied']);
    const emitted = new Set<string>();
    for (const s of scenarios()) for (const message of run(js, s).refusals) emitted.add(message);
    expect([...emitted].sort()).toEqual([...declared].sort());
  });

  it('waits on a pending consent: no error, no request', () => {
    const pending = run(js, { optedOut: false, gpc: false, gpcOption: undefined, consent: 'pending', later: [] });
    expect(pending).toEqual({ refusals: [], requests: 0 });
  });
});
