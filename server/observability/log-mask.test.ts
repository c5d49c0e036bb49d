import { describe, expect, it } from 'vitest';
import { mask, maskEmails, maskSecrets } from './log-mask.ts';

describe('log masking', () => {
  it('keeps only the first character of an email local part', () => {
    expect(maskEmails('lookup for Jane.Doe@northwind.example failed')).toBe('lookup for J***@northwind.example failed');
    expect(maskEmails('GET /x?email=jane.doe%40northwind.example&a=1')).toBe('GET /x?email=j***%40northwind.example&a=1');
  });

  it('masks token secrets and Authorization values but keeps request ids and numbers', () => {
    const secret = 'Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789AbCd';
    expect(maskSecrets(`secret ${secret} refused`)).toBe('secret Ab3d*** refused');
    expect(maskSecrets('Authorization: Bearer test-admin-token-0123456789')).toBe('Authorization: Bearer ***');
    expect(maskSecrets('request 3f2b8c1e-0d4a-4e2b-9c6f-1a2b3c4d5e6f took 12345678901234567890')).toBe(
      'request 3f2b8c1e-0d4a-4e2b-9c6f-1a2b3c4d5e6f took 12345678901234567890',
    );
  });

  it('combines both', () => {
    expect(mask('a@b.example sent test-admin-token-0123456789')).toBe('a***@b.example sent test***');
  });
});
