import { describe, expect, it } from 'vitest';
import { pageViewPath } from './pageviews.ts';

const path = (url: string) => {
  const { pathname, search } = new URL(url);
  return pageViewPath({ pathname, search });
};

describe('pageViewPath', () => {
  it.each([
    ['https://www.acme.example/', '/'],
    ['https://www.acme.example/pricing', '/pricing'],
    ['https://www.acme.example/pricing?plan=pro', '/pricing'],
    ['https://www.acme.example/pricing?utm_source=news', '/pricing?utm_source=news'],
    [
      'https://www.acme.example/p?email=jane%40x.example&utm_source=a&token=s3cr3t&utm_campaign=spring%20sale#top',
      '/p?utm_source=a&utm_campaign=spring%20sale',
    ],
    ['https://www.acme.example/p?utm_medium=&q=search+terms', '/p?utm_medium='],
    ['https://www.acme.example/p?xutm_source=a&UTM_SOURCE=b', '/p'],
    ['https://www.acme.example/a%20b/?svc_test_ip=1.2.3.4&svc_debug=1', '/a%20b/'],
    ['https://www.acme.example/p?utm_source=a&q=1&utm_medium=b', '/p?utm_source=a&utm_medium=b'],
    ['https://www.acme.example/p?&utm_source=a&&utm_medium=b&', '/p?utm_source=a&utm_medium=b'],
    ['https://www.acme.example/p?q=utm_x&a=b&utm_id=1', '/p?utm_id=1'],
    ['https://www.acme.example/p?', '/p'],
    ['https://www.acme.example/p?utm_content=what?now&q=1', '/p?utm_content=what?now'], // a "?" in a value is part of it
  ])('%s → %s', (url, want) => expect(path(url)).toBe(want));
});

describe("pageViewPath with the kept query parameters (the customer's kept_query_params)", () => {
  const kept = (url: string, names: string[]) => {
    const { pathname, search } = new URL(url);
    return pageViewPath({ pathname, search }, names);
  };
  it.each([
    ['https://www.acme.example/pricing?plan=pro', ['plan'], '/pricing?plan=pro'],
    ['https://www.acme.example/pricing?plan=pro&email=jane%40x.example&utm_source=a', ['plan'], '/pricing?plan=pro&utm_source=a'],
    ['https://www.acme.example/p?utm_source=a&tab=2&plan=pro&q=secret', ['plan', 'tab'], '/p?utm_source=a&tab=2&plan=pro'],
    ['https://www.acme.example/p?plan', ['plan'], '/p?plan'], // a name without a value is kept as written
    ['https://www.acme.example/p?plan=&x=1', ['plan'], '/p?plan='],
    ['https://www.acme.example/p?Plan=pro&planx=1&xplan=2', ['plan'], '/p'], // exact names, case included (as the server)
    ['https://www.acme.example/p?q=plan%3Dpro', ['plan'], '/p'], // a name inside another's value is no parameter
    ['https://www.acme.example/p?plan=pro', [], '/p'],
    ['https://www.acme.example/p?svc_test_ip=1.2.3.4&plan=a', ['plan'], '/p?plan=a'],
  ])('%s keeping %j → %s', (url, names, want) => expect(kept(url, names)).toBe(want));

  it('keeps only utm_* without the list (a generic bundle, a customer without kept parameters)', () => {
    expect(pageViewPath({ pathname: '/p', search: '?plan=pro&utm_id=1' })).toBe('/p?utm_id=1');
    expect(pageViewPath({ pathname: '/p', search: '?plan=pro&utm_id=1' }, undefined)).toBe('/p?utm_id=1');
  });
});
