import { describe, expect, it } from 'vitest';
import { formatDuration, propertiesText } from './engagement-view.ts';

describe('engagement words', () => {
  it('says a duration in seconds, minutes and hours as people read them', () => {
    expect([0, 0.4, 45, 59.6, 60, 125, 3600, 3780, 3845, 86_399].map(formatDuration)).toEqual([
      '0 s',
      '0 s',
      '45 s',
      '1 min',
      '1 min',
      '2 min 5 s',
      '1 h',
      '1 h 3 min',
      '1 h 4 min',
      '23 h 59 min',
    ]);
    expect(formatDuration(-5)).toBe('0 s');
  });

  it('lists an event’s properties on one line, in their order', () => {
    expect(propertiesText({ plan: 'pro', seats: 5, trial: true })).toBe('plan: pro · seats: 5 · trial: true');
    expect(propertiesText({})).toBe('');
  });
});
