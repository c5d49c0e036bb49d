import { describe, expect, it } from 'vitest';
import { NewToken } from '../../core/access-records.ts';
import { emptyTokenForm, splitList, type TokenFormFields, tokenRequestBody } from './token-form.ts';

const form = (over: Partial<TokenFormFields>): TokenFormFields => ({ ...emptyTokenForm('company-firmographics'), name: 'hubspot', ...over });

describe('splitList', () => {
  it('trims, drops blanks and duplicates', () => {
    expect(splitList(' hubspot, salesforce ,,hubspot\nmarketo ')).toEqual(['hubspot', 'salesforce', 'marketo']);
    expect(splitList('   ')).toEqual([]);
  });
});

describe('tokenRequestBody', () => {
  it('defaults to a 100 requests/minute rate limit', () => {
    expect(emptyTokenForm().rate_limit).toBe('100');
    const r = tokenRequestBody('demo', form({ rate_limit: '' }));
    expect(r).toMatchObject({ ok: true, body: { rate_limit: 100 } });
  });

  it('builds the admin API body, which the server schema accepts', () => {
    const r = tokenRequestBody('demo', form({ name: '  hubspot ', integrations: 'hubspot, zapier', scores: true, rate_limit: '250' }));
    expect(r).toEqual({
      ok: true,
      body: {
        customer_id: 'demo',
        api_group: 'company-firmographics',
        name: 'hubspot',
        integrations: ['hubspot', 'zapier'],
        allowed_domains: [],
        scores: true,
        segment_names: false,
        rate_limit: 250,
      },
    });
    if (r.ok) expect(NewToken.parse(r.body)).toEqual(r.body);
  });

  it('sends allowed domains only for identification tokens', () => {
    const domains = 'www.example.com, *.example.com\nshop.example.com';
    expect(tokenRequestBody('demo', form({ allowed_domains: domains }))).toMatchObject({ ok: true, body: { allowed_domains: [] } });
    expect(tokenRequestBody('demo', form({ api_group: 'identification', allowed_domains: domains }))).toMatchObject({
      ok: true,
      body: { allowed_domains: ['www.example.com', '*.example.com', 'shop.example.com'] },
    });
  });

  it('checks each allowed domain with the shared syntax rules, naming the bad entry, and stores punycode', () => {
    for (const bad of ['*.com', '*', 'https://www.example.com', 'example.com:8080', 'example.com/shop']) {
      expect(tokenRequestBody('demo', form({ api_group: 'identification', allowed_domains: `ok.example, ${bad}` }))).toMatchObject({
        ok: false,
        field: 'allowed_domains',
        message: expect.stringContaining(`"${bad}"`),
      });
    }
    expect(tokenRequestBody('demo', form({ api_group: 'identification', allowed_domains: 'Bücher.example localhost 127.0.0.1' }))).toMatchObject({
      ok: true,
      body: { allowed_domains: ['xn--bcher-kva.example', 'localhost', '127.0.0.1'] },
    });
  });

  it('names the field a person has to fix', () => {
    expect(tokenRequestBody('demo', form({ name: '   ' }))).toMatchObject({ ok: false, field: 'name', message: expect.stringMatching(/needs a name/) });
    expect(tokenRequestBody('demo', form({ api_group: '' }))).toMatchObject({ ok: false, field: 'api_group' });
    for (const rate of ['0', '-5', '1.5', 'lots', '1000001']) {
      expect(tokenRequestBody('demo', form({ rate_limit: rate }))).toMatchObject({ ok: false, field: 'rate_limit' });
    }
  });
});
