import { describe, expect, it } from 'vitest';
import { onNavigation } from './history.ts';

describe('onNavigation', () => {
  it('runs the original pushState / replaceState (on the history, with the arguments) first, then the listener; and on popstate', () => {
    const calls: unknown[][] = [];
    const history = {
      pushState(...args: unknown[]) {
        calls.push(['push', this === history, ...args]);
      },
      replaceState(...args: unknown[]) {
        calls.push(['replace', this === history, ...args]);
      },
    };
    const listeners: Record<string, () => void> = {};
    const win = { history, addEventListener: (type: string, listener: () => void) => (listeners[type] = listener) } as unknown as Window;
    onNavigation(win, () => calls.push(['listener']));
    win.history.pushState({ a: 1 }, '', '/next');
    const { replaceState } = win.history; // detached: still the history's own
    replaceState(null, '', '/other');
    listeners.popstate!();
    expect(calls).toEqual([['push', true, { a: 1 }, '', '/next'], ['listener'], ['replace', true, null, '', '/other'], ['listener'], ['listener']]);
  });
});
