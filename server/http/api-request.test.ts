import { parse } from 'node:querystring';
import { describe, expect, it } from 'vitest';
import { parseQuery } from './api-request.ts';

describe('parseQuery', () => {
  it('reads every query as node:querystring does, one plain parameter by its own scan', () => {
    const queries = [
      '',
      'tag=bench-tag-17',
      'ip=203.0.113.9',
      'ip=2001:db8::1',
      'ip=',
      'tag',
      '=x',
      'a=b=c',
      'tag=a&tag=b',
      'tag=a&ip=1.2.3.4',
      'tag=a%20b',
      'tag=a+b',
      'tag=caf\u00e9',
      'tag=a;b',
      '__proto__=x',
      'constructor=x',
      'toString=1',
      'x.y~z_-=A.b~C_-9',
    ];
    for (const q of queries) expect({ ...parseQuery(q) }, q).toEqual({ ...parse(q) });
  });

  it('answers objects without inherited properties, as querystring does', () => {
    for (const q of ['', 'tag=t1', 'ip=1.2.3.4&x=1']) {
      const query = parseQuery(q);
      expect(query.toString, q).toBeUndefined();
      expect('hasOwnProperty' in query, q).toBe(false);
      expect(query.constructor, q).toBeUndefined();
    }
    expect(Object.keys(parseQuery('__proto__=x'))).toEqual(['__proto__']);
  });
});
