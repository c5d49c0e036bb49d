import { describe, expect, it } from 'vitest';
import { redactSecrets } from './errors.ts';

describe('redactSecrets', () => {
  it('removes anything shaped like a token, whole or cut off, and keeps ordinary words', () => {
    const token = 'aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7b';
    expect(redactSecrets(`invalid X-svc-CustomID: "acme-${token}" is wrong`)).toBe('invalid X-svc-CustomID: "acme-[redacted]" is wrong');
    expect(redactSecrets(`no such route: GET /v1/${token.slice(0, 25)}`)).toBe('no such route: GET /v1/[redacted]');
    expect(redactSecrets('email is mandatory and cannot be blank (or send domain)')).toBe('email is mandatory and cannot be blank (or send domain)');
  });
});
