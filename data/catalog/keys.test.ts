/** The string-search key functions compute exactly what the regex rules do. */
import { describe, expect, it } from 'vitest';
import { linkedinKey, linkedinKeyByRegex, normaliseDomain, normaliseDomainByRegex } from './keys.ts';

const PARTS = [
  'http://',
  'https://',
  'HTTPS://',
  'www.',
  'WWW.',
  'linkedin.com',
  '/in/',
  'ann-lee',
  'acme.example',
  '/',
  '//',
  '?',
  '#',
  '?x=1',
  '.',
  '..',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\u2028',
  '\u00a0',
  'É',
  'ß',
  'İ',
  'ﬀ',
  'http:/',
  'www',
  ':',
  'a',
  '',
];

function* samples(): Generator<string> {
  yield* ['', '/', '.', 'www.', 'http://', 'https://www.', 'https://www.linkedin.com/in/ann-lee/', 'Acme.Example.', 'a?b\nc', 'x#\ny/'];
  let s = 99;
  const rnd = (k: number) => {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    return (s >>> 12) % k;
  };
  for (let n = 0; n < 50_000; n++) {
    let t = '';
    for (let k = rnd(7); k >= 0; k--) t += PARTS[rnd(PARTS.length)];
    yield t;
  }
}

describe('catalog keys', () => {
  it('linkedinKey matches the regex rules', () => {
    for (const t of samples()) expect(linkedinKey(t), JSON.stringify(t)).toBe(linkedinKeyByRegex(t));
  });

  it('normaliseDomain matches the regex rules', () => {
    for (const t of samples()) expect(normaliseDomain(t), JSON.stringify(t)).toBe(normaliseDomainByRegex(t));
  });

  it('keys profile URLs and domains as documented', () => {
    expect(linkedinKey(' HTTPS://www.LinkedIn.com/in/Ann-Lee/?trk=x ')).toBe('linkedin.com/in/ann-lee');
    expect(normaliseDomain('https://www.Acme.Example./about')).toBe('acme.example');
  });
});
