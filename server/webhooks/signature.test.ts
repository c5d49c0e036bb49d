import { describe, expect, it } from 'vitest';
import { generateSigningSecret, signatureHeader, verifySignature } from './signature.ts';

describe('Svc-Signature', () => {
  it('is t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> (vector computed with openssl dgst -sha256 -hmac)', () => {
    expect(signatureHeader('whsec_test', '{"id":"evt_1"}', 1_700_000_000)).toBe(
      't=1700000000,v1=c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925',
    );
  });

  it('verifies what it signed, within the tolerance', () => {
    const header = signatureHeader('whsec_test', '{"a":1}', 1_700_000_000);
    expect(verifySignature(header, '{"a":1}', 'whsec_test', 1_700_000_100)).toBe(true);
  });

  it('refuses a changed body, another secret, an old or future timestamp, and malformed headers', () => {
    const header = signatureHeader('whsec_test', '{"a":1}', 1_700_000_000);
    expect(verifySignature(header, '{"a":2}', 'whsec_test', 1_700_000_000)).toBe(false);
    expect(verifySignature(header, '{"a":1}', 'whsec_other', 1_700_000_000)).toBe(false);
    expect(verifySignature(header, '{"a":1}', 'whsec_test', 1_700_000_000 + 301)).toBe(false);
    expect(verifySignature(header, '{"a":1}', 'whsec_test', 1_700_000_000 - 301)).toBe(false);
    expect(verifySignature(header.replace('t=1700000000', 't=1700000001'), '{"a":1}', 'whsec_test', 1_700_000_000)).toBe(false);
    for (const bad of ['', 'garbage', 't=abc,v1=00', 'v1=' + 'a'.repeat(64), null, undefined])
      expect(verifySignature(bad, '{"a":1}', 'whsec_test', 1_700_000_000)).toBe(false);
  });

  it('accepts any of several v1 signatures (a receiver rotating secrets)', () => {
    const good = signatureHeader('whsec_test', 'x', 1_700_000_000);
    expect(verifySignature(`t=1700000000,v1=${'0'.repeat(64)},${good.split(',')[1]}`, 'x', 'whsec_test', 1_700_000_000)).toBe(true);
  });

  it('generates distinct secrets with a recognisable prefix', () => {
    const a = generateSigningSecret();
    expect(a).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(generateSigningSecret()).not.toBe(a);
  });
});
