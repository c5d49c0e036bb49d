import { describe, expect, it } from 'vitest';
import { refusal } from './privacy.ts';

describe('refusal: one rule for the lookup and the page views', () => {
  it.each([
    [false, undefined, {}, null],
    [false, false, { consent: 'granted' }, null],
    [true, false, {}, 'opted out'],
    [true, true, { consent: 'denied' }, 'opted out'],
    [false, true, {}, 'gpc'],
    [false, true, { gpc: true }, 'gpc'],
    [false, true, { gpc: false }, null],
    [false, true, { gpc: false, consent: 'denied' }, 'consent denied'],
    [false, false, { consent: 'denied' }, 'consent denied'],
    [false, false, { consent: 'pending' }, 'consent pending'],
  ] as const)('opted out %s, GPC %s, %j → %s', (optedOut, gpc, options, want) => expect(refusal(optedOut, gpc, options)).toBe(want));
});
