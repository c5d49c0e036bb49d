import { parse } from 'node:querystring';
import { describe, expect, it } from 'vitest';
import { parseQuery } from './fast-route.ts';

describe('parseQuery (the fast route reads the query as node:querystring does)', () => {
  it("gives node:querystring's object for plain, encoded, repeated, empty and odd queries", () => {
    const queries = [
      'tag=bench-tag-17',
      'ip=203.0.113.9',
      'tag=',
      'tag',
      '=x',
      '',
      'a.b_c~d-e=1.2_3~4-5',
      '__proto__=x',
      'constructor=y',
      'tag=a%20b',
      'tag=a+b',
      'tag=a&tag=b',
      'tag=a&ip=1.2.3.4',
      'tag=a=b',
      'tag=a;b',
      'tag=%E2%82%AC',
      'tag=%zz',
      'TAG=x',
      'tag=é',
    ];
    for (const q of queries) {
      const ours = parseQuery(q);
      expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(parse(q)));
      expect({ ...ours }).toEqual({ ...parse(q) });
      expect(Object.keys(ours)).toEqual(Object.keys(parse(q)));
    }
  });
});
