/**
 * Intent topics over real HTTP, on a dataset built with topics.csv: the customer's choice (GET/PUT …/topics,
 * the dataset's names), the account page's surging topics with their trend, `topic` segment rules, and the
 * identification and enrichment answers — `intent_topics` only for a token with that setting, the spec's
 * answer unchanged for every other token and for the web tag.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewToken } from '../../core/access-records.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer, writeFixtureSources } from '../testing/test-server.ts';

const sources = mkdtempSync(join(tmpdir(), 'svc-topics-http-'));
writeFixtureSources(sources);
writeFileSync(
  join(sources, 'topics.csv'),
  [
    'company_id,topic,score,week',
    '900001,Customer Data Platform,41,2026-10-05',
    '900001,Customer Data Platform,55,2026-10-12',
    '900001,Customer Data Platform,63,2026-10-19',
    '900001,Customer Data Platform,78,2026-10-26',
    '900001,Identity Resolution,52,2026-10-26',
    '900001,ERP,90,2026-09-28',
    '900002,ERP,71,2026-10-26',
    '900002,Customer Data Platform,30,2026-10-26',
  ].join('\n') + '\n',
);

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ sources });
});
afterAll(async () => {
  await srv?.close();
  rmSync(sources, { recursive: true, force: true });
});

async function admin(path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${srv.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, origin: srv.url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const tokens = new Map<string, string>();
async function token(group: NewToken['api_group'], intent_topics: boolean): Promise<string> {
  const key = `${group}/${intent_topics}`;
  if (!tokens.has(key))
    tokens.set(key, (await srv.store.createToken({ customer_id: 'acme', api_group: group, name: key, ...(intent_topics ? { intent_topics } : {}) })).secret);
  return tokens.get(key)!;
}

async function identify(secret: string, ip: string): Promise<any> {
  const res = await fetch(`${srv.url}/v3/company/details?ip=${encodeURIComponent(ip)}`, { headers: { authorization: `Token ${secret}` } });
  expect(res.status).toBe(200);
  return res.json();
}

async function post(path: string, secret: string, form: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${srv.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Token ${secret}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: await res.json() };
}

const FOLLOWED_CDP = { topic: 'Customer Data Platform', score: 78, surging: true, week: '2026-10-26' };
const FOLLOWED_IR = { topic: 'Identity Resolution', score: 52, surging: false, week: '2026-10-26' };

describe('the customer chooses its topics', () => {
  it('follows none at first, and lists the dataset’s topics with their accounts and surges', async () => {
    expect(await admin('/customers/acme/topics')).toEqual({ status: 200, body: { customer_id: 'acme', topics: [], latest_week: '2026-10-26' } });
    const names = await admin('/customers/acme/topics/names');
    expect(names.body).toEqual({
      latest_week: '2026-10-26',
      total: 3,
      names: [
        { name: 'Customer Data Platform', accounts: 2, surging: 1, followed: false },
        { name: 'ERP', accounts: 2, surging: 1, followed: false },
        { name: 'Identity Resolution', accounts: 1, surging: 0, followed: false },
      ],
    });
    expect((await admin('/customers/acme/topics/names?q=RESOL&limit=5')).body).toMatchObject({ total: 1, names: [{ name: 'Identity Resolution' }] });
    expect((await admin('/customers/acme/topics/names?limit=0')).status).toBe(422);
  });

  it('refuses topics the dataset lacks (422) and a topic named twice, changing nothing', async () => {
    const unknown = await admin('/customers/acme/topics', 'PUT', { topics: ['customer data platform', 'cdpx'] });
    expect(unknown).toMatchObject({ status: 422, body: { code: 'invalid', message: expect.stringContaining('no topic "cdpx" in the dataset') } });
    expect((await admin('/customers/acme/topics', 'PUT', { topics: ['ERP', 'erp'] })).status).toBe(422);
    expect((await admin('/customers/acme/topics', 'PUT', { topic: ['ERP'] })).status).toBe(422);
    expect((await admin('/customers/acme/topics')).body.topics).toEqual([]);
  });

  it('keeps the dataset’s spelling, marks them followed, and audits the change', async () => {
    const put = await admin('/customers/acme/topics', 'PUT', { topics: ['customer data platform', ' identity  resolution '] });
    expect(put).toEqual({ status: 200, body: { customer_id: 'acme', topics: ['Customer Data Platform', 'Identity Resolution'], latest_week: '2026-10-26' } });
    expect((await admin('/customers/acme/topics/names')).body.names.map((n: { followed: boolean }) => n.followed)).toEqual([true, false, true]);
    const audit = await admin('/customers/acme/audit');
    const entry = (audit.body.events ?? audit.body).find((e: { action: string }) => e.action === 'customer.topics');
    expect(entry).toMatchObject({ before: { topics: [] }, after: { topics: ['Customer Data Platform', 'Identity Resolution'] } });
  });
});

describe('the account page', () => {
  it('shows the followed topics the account has scores for, surging first, with the trend by week', async () => {
    const page = await admin('/customers/acme/accounts/900001');
    expect(page.status).toBe(200);
    const { topics } = page.body;
    expect(topics.latest_week).toBe('2026-10-26');
    expect(topics.followed).toEqual(['Customer Data Platform', 'Identity Resolution']);
    expect(topics.topics.map((t: { name: string; score: number; surging: boolean }) => [t.name, t.score, t.surging])).toEqual([
      ['Customer Data Platform', 78, true],
      ['Identity Resolution', 52, false],
    ]);
    const trend = topics.topics[0].trend as { week: string; score: number | null }[];
    expect(trend).toHaveLength(12);
    expect(trend[0]).toEqual({ week: '2026-08-10', score: null });
    expect(trend.slice(-4)).toEqual([
      { week: '2026-10-05', score: 41 },
      { week: '2026-10-12', score: 55 },
      { week: '2026-10-19', score: 63 },
      { week: '2026-10-26', score: 78 },
    ]);
    // ERP is not followed: not shown, though the account surged on it.
    expect(topics.topics.some((t: { name: string }) => t.name === 'ERP')).toBe(false);
  });
});

describe('a topic segment rule', () => {
  it('previews and saves {topic: {name, min_score, weeks}}, and identification answers its segment', async () => {
    const rule = { topic: { name: 'erp', min_score: 60, weeks: 4 } };
    expect((await admin('/customers/acme/segments/preview', 'POST', { match: rule })).body).toMatchObject({ size: 1, accounts: [{ companyId: '900002' }] });
    expect((await admin('/customers/acme/segments/preview', 'POST', { match: { topic: { name: 'erp', min_score: 60, weeks: 5 } } })).body.size).toBe(2);
    const created = await admin('/customers/acme/segments', 'POST', { name: 'ERP surge', match: rule });
    expect(created.status).toBe(201);
    const answer = await identify(await token('identification', false), IPS.bluepeak);
    expect(answer.segments.ids).toContain(created.body.id);
    expect((await identify(await token('identification', false), IPS.northwind)).segments.ids).not.toContain(created.body.id);
  });

  it('refuses a topic the dataset lacks (422)', async () => {
    const res = await admin('/customers/acme/segments/preview', 'POST', { match: { topic: { name: 'quantum widgets' } } });
    expect(res).toMatchObject({ status: 422, body: { code: 'invalid', message: expect.stringContaining('no topic "quantum widgets"') } });
  });
});

describe('answers carry the followed topics only for a token with intent_topics', () => {
  it('identification: absent without the setting (the spec’s four keys), present with it', async () => {
    const plain = await identify(await token('identification', false), IPS.northwind);
    expect(Object.keys(plain)).toEqual(['company', 'scores', 'segments', 'confidence']);
    const withTopics = await identify(await token('identification', true), IPS.northwind);
    expect(Object.keys(withTopics)).toEqual(['company', 'scores', 'segments', 'confidence', 'intent_topics']);
    expect(withTopics.intent_topics).toEqual([FOLLOWED_CDP, FOLLOWED_IR]);
    const { intent_topics: _t, ...rest } = withTopics;
    expect(rest).toEqual(plain);
    // No company: the field is there, empty.
    expect((await identify(await token('identification', true), IPS.isp)).intent_topics).toEqual([]);
  });

  it('the web tag never carries them', async () => {
    const res = await fetch(`${srv.url}/v3/company/details?tag=acme-tag`, { headers: { origin: 'http://localhost' } });
    expect(res.status).toBe(200);
    expect(Object.keys(await res.json())).toEqual(['company', 'scores', 'segments', 'confidence']);
  });

  it('Company Firmographics v3 and v2, Lead Scoring and Firmographics, and their 404s', async () => {
    const v3 = await token('company-firmographics', false);
    const v3t = await token('company-firmographics', true);
    const plain = await post('/v1/enrichment/company', v3, { domain: 'northwind.example' });
    expect(Object.keys(plain.body)).toEqual(['company', 'segments']);
    const topics = await post('/v1/enrichment/company', v3t, { domain: 'northwind.example' });
    expect(topics.body).toEqual({ ...plain.body, intent_topics: [FOLLOWED_CDP, FOLLOWED_IR] });
    const v2 = await post('/v2/people/enrichment', v3t, { email: 'ann@bluepeak.example' });
    expect(v2.body.intent_topics).toEqual([{ topic: 'Customer Data Platform', score: 30, surging: false, week: '2026-10-26' }]);
    expect(Object.keys((await post('/v2/people/enrichment', v3, { email: 'ann@bluepeak.example' })).body)).toEqual(['company', 'segments']);
    const missing = await post('/v1/enrichment/company', v3t, { domain: 'nobody.example' });
    expect(missing).toMatchObject({ status: 404, body: { intent_topics: [], code: 'not_found' } });
    expect('intent_topics' in (await post('/v1/enrichment/company', v3, { domain: 'nobody.example' })).body).toBe(false);

    const full = await post('/v2/people/full', await token('lead-scoring-firmographics', true), { email: 'jane@northwind.example', country: 'US' });
    expect(full.status).toBe(200);
    expect(full.body.intent_topics).toEqual([FOLLOWED_CDP, FOLLOWED_IR]);
    const fullPlain = await post('/v2/people/full', await token('lead-scoring-firmographics', false), { email: 'jane@northwind.example', country: 'US' });
    expect(Object.keys(fullPlain.body)).toEqual(['company', 'scores', 'segments']);
  });

  it('the batch answers each item as the single route does', async () => {
    const batch = async (secret: string) =>
      (
        await fetch(`${srv.url}/v3/batch/enrichment`, {
          method: 'POST',
          headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ items: [{ domain: 'northwind.example' }, { domain: 'nobody.example' }] }),
        })
      ).json();
    const withTopics = await batch(await token('company-firmographics', true));
    expect(withTopics.results.map((r: { status: number; intent_topics?: unknown }) => [r.status, r.intent_topics])).toEqual([
      [200, [FOLLOWED_CDP, FOLLOWED_IR]],
      [404, []],
    ]);
    const plain = await batch(await token('company-firmographics', false));
    expect(plain.results.every((r: object) => !('intent_topics' in r))).toBe(true);
  });

  it('follows the customer’s choice at once: none followed, an empty list', async () => {
    expect((await admin('/customers/acme/topics', 'PUT', { topics: [] })).status).toBe(200);
    expect((await identify(await token('identification', true), IPS.northwind)).intent_topics).toEqual([]);
    expect((await admin('/customers/acme/topics', 'PUT', { topics: ['ERP'] })).status).toBe(200);
    // ERP: 900001's last score is weeks old, 900002 surges this week.
    expect((await identify(await token('identification', true), IPS.northwind)).intent_topics).toEqual([]);
    expect((await identify(await token('identification', true), IPS.bluepeak)).intent_topics).toEqual([
      { topic: 'ERP', score: 71, surging: true, week: '2026-10-26' },
    ]);
  });
});

describe('token settings', () => {
  it('intent_topics is off unless asked for, and shown on the token', async () => {
    const created = await admin('/tokens', 'POST', { customer_id: 'acme', api_group: 'identification', name: 'crm-topics', intent_topics: true });
    expect(created).toMatchObject({ status: 201, body: { intent_topics: true, segment_names: false, scores: false } });
    const plain = await admin('/tokens', 'POST', { customer_id: 'acme', api_group: 'identification', name: 'crm-plain' });
    expect(plain.body.intent_topics).toBe(false);
    expect((await admin(`/tokens/${created.body.id}`)).body.intent_topics).toBe(true);
  });
});
