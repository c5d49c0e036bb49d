import { describe, expect, it } from 'vitest';
import { actorLabel, auditCsvName, changeLines } from './audit-view.ts';

describe('audit view', () => {
  it('names the actor by email, the operator as such', () => {
    expect(actorLabel('user:usr_0123456789abcdef jane@acme.test')).toBe('jane@acme.test');
    expect(actorLabel('operator')).toBe('operator');
    expect(actorLabel('anonymous')).toBe('anonymous');
  });

  it('shows before → after per field, a new record as its fields, a removed one as removed', () => {
    expect(changeLines({ role: 'marketer' }, { role: 'admin' })).toEqual(['role: marketer → admin']);
    expect(changeLines(null, { email: 'a@acme.test', role: 'viewer' })).toEqual(['email: a@acme.test', 'role: viewer']);
    expect(changeLines({ email: 'a@acme.test' }, null)).toEqual(['email: a@acme.test → (removed)']);
    expect(changeLines({ settings: { features: { spa: true } } }, { settings: { features: { spa: false } } })).toEqual([
      'settings: {"features":{"spa":true}} → {"features":{"spa":false}}',
    ]);
    expect(changeLines({ name: null }, { name: 'web' })).toEqual(['name: — → web']);
    expect(changeLines(null, null)).toEqual([]);
  });

  it('names the CSV after the customer and range', () => {
    expect(auditCsvName('acme', '2026-01-01', '2026-01-31')).toBe('audit-acme-2026-01-01-2026-01-31.csv');
  });
});
