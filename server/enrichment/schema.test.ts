import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../core/error-codes.ts';
import { parseFields as parseInput } from '../http/body.ts';
import { Combined, CombinedBody, FirmographicsV2, FirmographicsV2Body, FirmographicsV3, FirmographicsV3Body, LeadScoring, LeadScoringBody } from './schema.ts';

const fails = (schema: Parameters<typeof parseInput>[0], body: unknown): ApiError => {
  try {
    parseInput(schema, body);
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
};

describe('enrichment request bodies', () => {
  it('trim strings, default missing and null fields to "" and drop unknown fields', () => {
    const b = parseInput(FirmographicsV3Body, { email: '  a@b.example ', country: null, extra: { deep: [1] } });
    expect(b).toMatchObject({ email: 'a@b.example', domain: '', country: '', website: '' });
    expect(b).not.toHaveProperty('extra');
  });

  it('v3 needs email or domain (blank, 400, naming the email)', () => {
    expect(fails(FirmographicsV3Body, { email: ' ', domain: '' })).toMatchObject({
      code: 'blank',
      status: 400,
      message: expect.stringMatching(/^email is mandatory and cannot be blank/),
    });
    expect(parseInput(FirmographicsV3Body, { domain: 'x.example' }).domain).toBe('x.example');
  });

  it.each([
    ['v2', FirmographicsV2Body],
    ['combined', CombinedBody],
  ])('%s needs email; country is optional', (_n, schema) => {
    expect(fails(schema, { domain: 'x.example', country: 'US' })).toMatchObject({
      code: 'blank',
      status: 400,
      message: 'email is mandatory and cannot be blank',
    });
    expect(parseInput(schema, { email: 'a@b.example' }).country).toBe('');
  });

  it('Lead Scoring needs email and country, naming the blank one', () => {
    expect(fails(LeadScoringBody, { email: 'a@b.example' }).message).toBe('country is mandatory and cannot be blank');
    expect(fails(LeadScoringBody, { country: 'US' }).message).toBe('email is mandatory and cannot be blank');
  });

  it.each([
    ['an over-long email', { email: `${'a'.repeat(250)}@b.example` }, /email: must be at most 254/],
    ['an over-long field', { email: 'a@b.example', title: 'x'.repeat(501) }, /title: must be at most 500/],
    ['a repeated form field', { email: ['a@b.example', 'c@d.example'] }, /email: must be a single text value/],
    ['a number', { email: 42 }, /email: must be a single text value/],
    ['an object', { email: { $ne: '' } }, /email: must be a single text value/],
  ])('refuses %s as invalid, 422 (before the blank check)', (_n, body, message) => {
    const e = fails(LeadScoringBody, body);
    expect(e.code).toBe('invalid');
    expect(e.status).toBe(422);
    expect(e.message).toMatch(message);
  });

  it('measures length after trimming', () => {
    expect(parseInput(FirmographicsV2Body, { email: ` ${'a'.repeat(240)}@b.example ` }).email).toHaveLength(250);
  });
});

describe('the lead bodies read without zod (textBody fast)', () => {
  const bodies = { v3: FirmographicsV3, v2: FirmographicsV2, combined: Combined, score: LeadScoring };
  const fields = ['email', 'domain', 'country', 'company', 'industry', 'title', 'role', 'firstname', 'lastname', 'leadsource', 'website', 'extra'];
  // Values around every rule: blank, spaces, long (the limits 253/254/500 ± 1 after trimming), not a string.
  const value = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.constant(''),
    fc.constant('   '),
    fc.constant(' a@b.example '),
    fc.constant('DE'),
    fc.string({ maxLength: 8 }),
    fc.integer({ min: 250, max: 502 }).map((n) => 'x'.repeat(n)),
    fc.integer({ min: 250, max: 502 }).map((n) => ` ${'é'.repeat(n)}\t`),
    fc.constant(['a', 'b']),
    fc.constant(7),
    fc.constant({ deep: 1 }),
  );
  const body = fc.oneof(fc.dictionary(fc.constantFrom(...fields), value), fc.constantFrom(null, 'email=a', [], 42));

  it('answers what the schema answers for every body the schema accepts, and defers every other body to it', () => {
    for (const [name, { schema, fast }] of Object.entries(bodies)) {
      fc.assert(
        fc.property(body, (b) => {
          const quick = fast(b);
          const parsed = schema.safeParse(b);
          if (quick === undefined) return;
          expect(parsed.success, name).toBe(true);
          // The same fields, values and order.
          expect(JSON.stringify(quick), name).toBe(JSON.stringify(parsed.data));
        }),
        { numRuns: 2000 },
      );
    }
  });

  it('reads the ordinary body itself (a form with the required fields)', () => {
    const form = { email: ' lead@acme.example ', country: 'US', firstname: 'Ada', unknown: 'x' };
    for (const [name, { schema, fast }] of Object.entries(bodies)) {
      expect(fast(form), name).toEqual(schema.parse(form));
    }
    expect(FirmographicsV3.fast({ domain: 'acme.example' })?.domain).toBe('acme.example');
    // A blank required field is the schema's to word (400 blank): not read here.
    expect(FirmographicsV2.fast({ email: '  ' })).toBeUndefined();
    expect(LeadScoring.fast({ email: 'a@b.example' })).toBeUndefined();
  });
});
