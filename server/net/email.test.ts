import { describe, expect, it } from 'vitest';
import { isFreeMailDomain, parseDomain, parseEmail } from './email.ts';

describe('parseEmail', () => {
  it('trims and lower-cases the domain only', () => {
    expect(parseEmail('  Jane.Doe@Northwind.EXAMPLE ')).toEqual({ address: 'Jane.Doe@northwind.example', domain: 'northwind.example' });
  });
  it.each([
    '',
    'jane',
    'jane@',
    '@northwind.example',
    'jane doe@northwind.example',
    'jane@northwind',
    'jane@@northwind.example',
    'jane@-bad.example',
    'jane@northwind..example',
    'jane@1.2.3.4',
    '"quoted"@x.example',
  ])('refuses %j', (raw) => expect(parseEmail(raw)).toBeNull());
});

describe('parseDomain', () => {
  it.each([
    ['northwind.example', 'northwind.example'],
    ['https://www.Northwind.example/about?x=1', 'northwind.example'],
    ['NORTHWIND.EXAMPLE.', 'northwind.example'],
    ['northwind.example:8443', 'northwind.example'],
    ['münchen.example', 'münchen.example'],
  ])('reads %j as %j', (raw, want) => expect(parseDomain(raw)).toBe(want));
  it.each(['', 'not a domain', 'localhost', 'a@b.example', '...', '-x.example'])('refuses %j', (raw) => expect(parseDomain(raw)).toBeNull());
});

describe('isFreeMailDomain', () => {
  it.each(['gmail.com', 'yahoo.co.uk', 'outlook.com', 'GMX.de', 'mail.yahoo.co.uk'])('%s is free mail', (d) => expect(isFreeMailDomain(d)).toBe(true));
  it.each(['northwind.example', 'bluepeak.example', 'com'])('%s is not', (d) => expect(isFreeMailDomain(d)).toBe(false));
});
