import { describe, expect, it } from 'vitest';
import { ApiError } from '../../core/error-codes.ts';
import { parseFields as parseInput } from '../http/body.ts';
import { CombinedBody, FirmographicsV2Body, FirmographicsV3Body, LeadScoringBody } from './schema.ts';

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
