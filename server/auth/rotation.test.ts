import { describe, expect, it } from 'vitest';
import { rotationAdvice } from './rotation.ts';

const now = new Date('2026-11-22T00:00:00Z');

describe('rotationAdvice', () => {
  it('flags a secret older than 90 days, counting from the last rotation', () => {
    expect(rotationAdvice({ name: 'crm', created_at: '2026-08-24T00:00:00Z', rotated_at: null }, now).needs_rotation).toBe(false);
    expect(rotationAdvice({ name: 'crm', created_at: '2026-08-23T23:59:00Z', rotated_at: null }, now).needs_rotation).toBe(true);
    expect(rotationAdvice({ name: 'crm', created_at: '2025-01-01T00:00:00Z', rotated_at: '2026-11-01T00:00:00Z' }, now).needs_rotation).toBe(false);
  });
  it('always flags default_existing_token for migration', () => {
    const advice = rotationAdvice({ name: 'default_existing_token', created_at: '2026-11-21T00:00:00Z', rotated_at: null }, now);
    expect(advice).toEqual({ needs_rotation: true, reasons: [expect.stringMatching(/migrate/)] });
  });
});
