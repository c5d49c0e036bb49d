import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import { CustomersFile } from '../../core/customer-records.ts';
import {
  COMPANY_COLUMNS,
  DOMAIN_COLUMNS,
  DomainRow,
  ENGAGEMENT_COLUMNS,
  EngagementRow,
  INTENT_COLUMNS,
  IntentRow,
  NETWORK_COLUMNS,
  NetworkRow,
  PERSON_COLUMNS,
  SOURCE_FILES,
} from '../sources/schema.ts';
import { FREE_MAIL_DOMAINS } from './companies.ts';
import { type GenerateSummary, generateSources, MAX_COMPANIES } from './generate.ts';
import { type CsvKey, headerLine, type NetworkEntry, networkEntries, networkEntries6, readRows } from './read-generated.ts';
import { COUNTRIES } from './vocabulary/geography.ts';
import { ENGAGEMENT_ACTIVITIES, INTENT_TOPICS } from './vocabulary/signals.ts';
import { EMPLOYEE_RANGES, REVENUE_RANGES, revenueRange } from './vocabulary/sizes.ts';

const COMPANIES = 300;
const root = mkdtempSync(join(tmpdir(), 'generate-'));
const dirs = { a: join(root, 'a'), again: join(root, 'again'), other: join(root, 'other'), worker: join(root, 'worker') };
let summary: GenerateSummary;

beforeAll(async () => {
  summary = await generateSources({ out: dirs.a, companies: COMPANIES, seed: 'test' });
  await generateSources({ out: dirs.again, companies: COMPANIES, seed: 'test' });
  await generateSources({ out: dirs.other, companies: COMPANIES, seed: 'other' });
  await generateSources({ out: dirs.worker, companies: COMPANIES, seed: 'test', parallel: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FILES = Object.values(SOURCE_FILES);
const bytes = (dir: string, f: string) => readFileSync(join(dir, f));

describe('determinism', () => {
  it('writes byte-identical files for the same seed', () => {
    expect(readdirSync(dirs.a).sort()).toEqual([...FILES].sort());
    for (const f of FILES) expect(bytes(dirs.again, f).equals(bytes(dirs.a, f)), f).toBe(true);
  });

  it('writes the same bytes when people are generated in a worker thread', () => {
    for (const f of FILES) expect(bytes(dirs.worker, f).equals(bytes(dirs.a, f)), f).toBe(true);
  });

  it('writes different data for a different seed', () => {
    for (const f of FILES.filter((x) => x !== SOURCE_FILES.customers)) expect(bytes(dirs.other, f).equals(bytes(dirs.a, f)), f).toBe(false);
    expect(readRows(dirs.other, 'companies').map((r) => r.name)).not.toEqual(readRows(dirs.a, 'companies').map((r) => r.name));
  });

  it('reports what it wrote', () => {
    expect(summary.companies).toBe(COMPANIES);
    for (const key of Object.keys(SOURCE_FILES) as (keyof typeof SOURCE_FILES)[]) {
      expect(summary.files[key].bytes).toBe(bytes(dirs.a, SOURCE_FILES[key]).length);
      if (key !== 'customers') expect(summary.files[key].rows).toBe(readRows(dirs.a, key).length);
    }
  });
});

describe('schema', () => {
  const files: [CsvKey, readonly string[], z.ZodType][] = [
    ['companies', COMPANY_COLUMNS, CompanyRow],
    ['networks', NETWORK_COLUMNS, NetworkRow],
    ['domains', DOMAIN_COLUMNS, DomainRow],
    ['people', PERSON_COLUMNS, PersonRow],
    ['intent', INTENT_COLUMNS, IntentRow],
    ['engagement', ENGAGEMENT_COLUMNS, EngagementRow],
  ];

  it.each(files)('%s.csv has exactly the schema header and every row validates', (key, columns, schema) => {
    expect(headerLine(dirs.a, key)).toBe(columns.join(','));
    const rows = readRows(dirs.a, key);
    expect(rows.length).toBeGreaterThan(0);
    for (const [i, row] of rows.entries()) {
      const r = schema.safeParse(row);
      if (!r.success) throw new Error(`${key} row ${i + 2}: ${r.error.issues[0]?.message}: ${JSON.stringify(row)}`);
    }
  });

  it('customers.json validates, with the demo and globex customers', () => {
    const file = CustomersFile.parse(JSON.parse(readFileSync(join(dirs.a, SOURCE_FILES.customers), 'utf8')));
    const [demo, globex] = file.customers;
    expect(demo).toMatchObject({
      id: 'demo',
      name: 'Acme Analytics',
      packages: ['platform', 'sales-intelligence', 'advanced', 'people-enrichment'],
      identification_credits: 100_000,
      enrichment_credits: 10_000,
      contract_start: '2026-01-01',
      tags: [{ tag_id: 'demo-web-tag', allowed_domains: ['localhost', '127.0.0.1', '::1'], scores: true, segment_names: true }],
    });
    expect(demo.products).toHaveLength(2);
    expect(demo.products[0]).toMatchObject({
      name: 'cdp',
      display_name: 'Customer Data Platform',
      persona: { levels: ['C-Level', 'VP', 'Director'], functions: ['Marketing', 'Data & Analytics'] },
    });
    expect(demo.segments.length).toBeGreaterThanOrEqual(3);
    expect(demo.segments[0]).toMatchObject({ id: 101, name: 'Enterprise Software' });
    expect(globex).toMatchObject({ id: 'globex', packages: ['platform'] });
    expect(globex.packages).not.toContain('advanced');
    expect(globex.identification_credits).toBeLessThan(demo.identification_credits);
    const ids = new Set(readRows(dirs.a, 'companies').map((r) => r.company_id));
    for (const id of [...demo.excluded_accounts, ...demo.hot_accounts.map((h) => h.company_id)]) expect(ids.has(id)).toBe(true);
    const topics = new Set<string>(INTENT_TOPICS);
    for (const p of demo.products) for (const t of p.intent_topics) expect(topics.has(t), t).toBe(true);
  });
});

describe('companies', () => {
  const rows = () => readRows(dirs.a, 'companies');

  it('have unique, stable ids and unique domains (also across domains.csv), never free-mail', () => {
    const r = rows();
    expect(r.map((x) => x.company_id)).toEqual(r.map((_, i) => String(100_001 + i)));
    const all = [...r.map((x) => x.domain), ...readRows(dirs.a, 'domains').map((x) => x.domain)];
    expect(new Set(all).size).toBe(all.length);
    for (const d of all) {
      expect(d).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*\.[a-z]{2,}$/);
      expect(FREE_MAIL_DOMAINS.has(d), d).toBe(false);
    }
  });

  it('extra domains belong to existing companies', () => {
    const ids = new Set(rows().map((x) => x.company_id));
    for (const d of readRows(dirs.a, 'domains')) expect(ids.has(d.company_id)).toBe(true);
  });

  it('have consistent sizes, places and codes', () => {
    const places = new Map(COUNTRIES.map((c) => [c.iso, c]));
    for (const c of rows()) {
      const employees = Number(c.employee_count);
      const revenue = Number(c.annual_revenue);
      expect(EMPLOYEE_RANGES).toContain(c.employee_range);
      expect(REVENUE_RANGES).toContain(c.revenue_range);
      const [lo, hi] = c.employee_range === '10,000+' ? [10_000, Infinity] : c.employee_range.replaceAll(',', '').split('-').map(Number);
      expect(employees >= lo && employees <= hi, `${c.name}: ${employees} in ${c.employee_range}`).toBe(true);
      expect(revenueRange(revenue)).toBe(c.revenue_range);
      expect(revenue).toBeGreaterThanOrEqual(1_000_000);
      const country = places.get(c.country_iso_code)!;
      expect(country.name).toBe(c.country);
      expect(country.region).toBe(c.region);
      const state = country.states.find((s) => s.name === c.state)!;
      expect(state.code).toBe(c.state_code);
      expect(state.cities.some((x) => x.name === c.city)).toBe(true);
      expect(c.sic).toMatch(/^\d{4}$/);
      expect(c.naics).toMatch(/^\d{6}$/);
      expect(c.phone).toMatch(/^\+\d{1,3} [\d -]+$/);
    }
  });

  it('spread over industries, sizes and countries, US heavy', () => {
    const r = rows();
    expect(new Set(r.map((c) => c.industry)).size).toBeGreaterThanOrEqual(12);
    expect(new Set(r.map((c) => c.employee_range)).size).toBe(8);
    expect(new Set(r.map((c) => c.country_iso_code)).size).toBeGreaterThanOrEqual(12);
    const us = r.filter((c) => c.country_iso_code === 'US').length / r.length;
    expect(us).toBeGreaterThan(0.35);
    expect(us).toBeLessThan(0.65);
  });
});

describe('networks', () => {
  let entries: NetworkEntry[];
  beforeAll(() => {
    entries = networkEntries(dirs.a);
  });

  it('parse as CIDRs (at their network address) or ranges with first ≤ last, in public space only', () => {
    const forbidden = [
      '0.0.0.0/8',
      '10.0.0.0/8',
      '100.64.0.0/10',
      '127.0.0.0/8',
      '169.254.0.0/16',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '224.0.0.0/3',
      '192.0.2.0/24',
      '198.51.100.0/24',
      '203.0.113.0/24',
    ];
    // networkEntries (beforeAll) already parsed every row, throwing on anything else.
    for (const e of entries) {
      for (const f of forbidden) {
        const [base, bits] = f.split('/');
        const start = base.split('.').reduce((n, o) => n * 256 + Number(o), 0);
        const end = start + 2 ** (32 - Number(bits)) - 1;
        expect(e.last < start || e.first > end, `${e.row.network} overlaps ${f}`).toBe(true);
      }
    }
    expect(entries.some((e) => e.row.network.includes('-'))).toBe(true);
  });

  it('nest or stay apart, never overlap partially', () => {
    const sorted = [...entries].sort((a, b) => a.first - b.first || b.last - a.last);
    const open: NetworkEntry[] = [];
    for (const e of sorted) {
      while (open.length > 0 && open[open.length - 1].last < e.first) open.pop();
      const parent = open[open.length - 1];
      if (parent) expect(e.last <= parent.last, `${e.row.network} overlaps ${parent.row.network}`).toBe(true);
      open.push(e);
    }
  });

  it('include nesting of the kinds the data build must handle', () => {
    const inside = (child: NetworkEntry, kind: string, other?: boolean) =>
      entries.some(
        (p) =>
          p !== child &&
          p.row.kind === kind &&
          p.first <= child.first &&
          child.last <= p.last &&
          p.last - p.first > child.last - child.first &&
          (!other || p.row.company_id !== child.row.company_id),
      );
    const companies = entries.filter((e) => e.row.kind === 'company');
    expect(companies.some((c) => inside(c, 'isp'))).toBe(true);
    expect(companies.some((c) => inside(c, 'company', true))).toBe(true);
    expect(
      companies.some((c) =>
        entries.some((p) => p !== c && p.row.company_id === c.row.company_id && p.first <= c.first && c.last <= p.last && p.last - p.first > c.last - c.first),
      ),
    ).toBe(true);
    expect(entries.filter((e) => e.row.kind === 'bot').some((b) => inside(b, 'hosting'))).toBe(true);
  });

  it('are about five per company, mostly High/Very High for companies, with every kind present', () => {
    const companies = entries.filter((e) => e.row.kind === 'company');
    expect(companies.length / COMPANIES).toBeGreaterThan(4);
    expect(companies.length / COMPANIES).toBeLessThan(6.5);
    const high = companies.filter((e) => e.row.confidence === 'High' || e.row.confidence === 'Very High').length;
    expect(high / companies.length).toBeGreaterThan(0.55);
    for (const kind of ['company', 'isp', 'hosting', 'bot'])
      expect(
        entries.some((e) => e.row.kind === kind),
        kind,
      ).toBe(true);
    const ids = new Set(readRows(dirs.a, 'companies').map((r) => r.company_id));
    for (const e of companies) expect(ids.has(e.row.company_id)).toBe(true);
    expect(new Set(companies.map((e) => e.row.company_id)).size).toBeGreaterThan(COMPANIES * 0.97);
  });

  it('include a small share of privacy networks of every drawn reason, inside hosting or ISP space, covering no company or bot network', () => {
    const privacy = entries.filter((e) => e.row.privacy);
    expect(privacy.length / entries.length).toBeGreaterThan(0.001);
    expect(privacy.length / entries.length).toBeLessThan(0.02);
    const reasons = new Set(privacy.map((e) => e.row.privacy));
    for (const r of reasons) expect(['vpn', 'tor', 'proxy', 'relay']).toContain(r);
    expect(reasons.size).toBeGreaterThanOrEqual(3);
    const others = entries.filter((e) => !e.row.privacy);
    for (const p of privacy) {
      expect(['hosting', 'isp']).toContain(p.row.kind);
      expect(
        others.some((o) => o.row.kind === p.row.kind && o.first <= p.first && p.last <= o.last),
        p.row.network,
      ).toBe(true);
      expect(
        others.some((o) => (o.row.kind === 'company' || o.row.kind === 'bot') && o.first <= p.last && p.first <= o.last),
        p.row.network,
      ).toBe(false);
    }
  });

  it('size ISPs big, hosting mid and bots small', () => {
    const sizes = (kind: string) => entries.filter((e) => e.row.kind === kind && !e.row.privacy).map((e) => e.last - e.first + 1);
    expect(Math.min(...sizes('isp'))).toBeGreaterThanOrEqual(65_536);
    for (const s of sizes('hosting')) expect(s >= 512 && s <= 8192).toBe(true);
    for (const s of sizes('bot')) expect(s).toBeLessThanOrEqual(16);
  });
});

describe('IPv6 networks', () => {
  const rows6 = () => networkEntries6(dirs.a);
  const top16 = (x: bigint) => Number(x >> 112n);

  it('are a realistic share: most ISPs, many hosting providers, a fifth of the companies, some bots', () => {
    const v6 = rows6();
    const all = readRows(dirs.a, 'networks');
    const share = v6.length / all.length;
    expect(share).toBeGreaterThan(0.02);
    expect(share).toBeLessThan(0.15);
    const count = (rows: { row: Record<string, string> }[], kind: string) => rows.filter((e) => e.row.kind === kind).length;
    const v4 = networkEntries(dirs.a);
    expect(count(v6, 'isp') / count(v4, 'isp')).toBeGreaterThan(0.4);
    expect(count(v6, 'hosting')).toBeGreaterThan(0);
    const companies6 = new Set(v6.filter((e) => e.row.kind === 'company').map((e) => e.row.company_id));
    expect(companies6.size / COMPANIES).toBeGreaterThan(0.1);
    expect(companies6.size / COMPANIES).toBeLessThan(0.45);
  });

  it('are canonical CIDRs of the usual sizes, in the registries’ blocks, never in 2001::/16 or 2002::/16', () => {
    const sizes: Record<string, number[]> = { isp: [29, 32], hosting: [32, 40, 44], company: [44, 48, 56], bot: [64], privacy: [64] };
    for (const e of rows6()) {
      expect(sizes[e.row.privacy ? 'privacy' : e.row.kind], e.row.network).toContain(e.prefix);
      expect([0x24, 0x26, 0x28, 0x2a], e.row.network).toContain(top16(e.first) >> 8);
      expect(top16(e.first) & 0xf0, e.row.network).toBe(0);
    }
  });

  it('nest or stay apart, with company /56s in ISPs, bots in hosting and branch /48s in a company /44', () => {
    const v6 = [...rows6()].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : b.prefix - a.prefix));
    const open: typeof v6 = [];
    const pairs = new Set<string>();
    for (const e of v6) {
      while (open.length > 0 && open[open.length - 1].last < e.first) open.pop();
      const parent = open[open.length - 1];
      if (parent) {
        expect(e.last <= parent.last, `${e.row.network} overlaps ${parent.row.network}`).toBe(true);
        pairs.add(`${e.row.kind}/${e.prefix} in ${parent.row.kind}`);
      }
      open.push(e);
    }
    expect(pairs).toContain('company/56 in isp');
    expect([...pairs].some((p) => p.startsWith('hosting/4') && p.endsWith('in hosting'))).toBe(true);
    const larger = largeSampleNesting();
    expect(larger.has('bot/64 in hosting')).toBe(true);
    expect(larger.has('company/48 in company')).toBe(true);
  });

  it('come after the company’s IPv4 rows, so each kind’s first network is IPv4', () => {
    const all = readRows(dirs.a, 'networks');
    for (const kind of ['company', 'isp', 'hosting', 'bot']) expect(all.find((r) => r.kind === kind)!.network).not.toContain(':');
    const firstV4 = new Map<string, number>();
    all.forEach((r, i) => {
      if (r.kind === 'company' && !r.network.includes(':') && !firstV4.has(r.company_id)) firstV4.set(r.company_id, i);
    });
    all.forEach((r, i) => {
      if (r.kind === 'company' && r.network.includes(':')) expect(firstV4.get(r.company_id)!, r.network).toBeLessThan(i);
    });
  });
});

/** Kinds of IPv6 nesting in a larger sample (bots and /44s are rare at 300 companies). */
let largeNesting: Set<string> | undefined;
function largeSampleNesting(): Set<string> {
  if (!largeNesting) throw new Error('large sample not generated');
  return largeNesting;
}
beforeAll(async () => {
  const dir = join(root, 'large6');
  await generateSources({ out: dir, companies: 3000, seed: 'ipv6' });
  const v6 = networkEntries6(dir);
  largeNesting = new Set();
  for (const e of v6) {
    for (const p of v6)
      if (p !== e && p.first <= e.first && e.last <= p.last && p.prefix < e.prefix) largeNesting.add(`${e.row.kind}/${e.prefix} in ${p.row.kind}`);
  }
});

describe('people', () => {
  const people = () => readRows(dirs.a, 'people');

  it('are about five per company, with unique ids, emails and LinkedIn URLs', () => {
    const p = people();
    expect(p.length / COMPANIES).toBeGreaterThan(4);
    expect(p.length / COMPANIES).toBeLessThan(7);
    expect(p.map((x) => x.people_id)).toEqual(p.map((_, i) => `P${String(i + 1).padStart(6, '0')}`));
    expect(new Set(p.map((x) => x.email)).size).toBe(p.length);
    const urls = p.map((x) => x.linkedin_url).filter(Boolean);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls.length / p.length).toBeGreaterThan(0.7);
    for (const u of urls) expect(u).toMatch(/^https:\/\/www\.linkedin\.com\/in\/[a-z0-9-]+-[0-9a-f]{8}$/);
  });

  it('have emails at their company’s domains', () => {
    const domains = new Map<string, Set<string>>();
    for (const c of readRows(dirs.a, 'companies')) domains.set(c.company_id, new Set([c.domain]));
    for (const d of readRows(dirs.a, 'domains')) domains.get(d.company_id)!.add(d.domain);
    let atPrimary = 0;
    const p = people();
    for (const x of p) {
      expect(x.email).toMatch(/^[a-z0-9._-]+@[a-z0-9.-]+$/);
      const domain = x.email.slice(x.email.indexOf('@') + 1);
      expect(domains.get(x.company_id)!.has(domain), `${x.email} at ${x.company_id}`).toBe(true);
      if ([...domains.get(x.company_id)!][0] === domain) atPrimary++;
    }
    expect(atPrimary / p.length).toBeGreaterThan(0.9);
  });

  it('have titles across levels, functions and languages, phones for some', () => {
    const p = people();
    const titles = new Set(p.map((x) => x.title));
    expect(titles.size).toBeGreaterThan(150);
    for (const needle of [
      /^(Chief|CEO|CFO|CTO|CMO|Founder|Owner)/,
      /^(VP|Vice President|SVP|EVP)/,
      /Director|Head of/,
      /Manager/,
      /Engineer|Analyst|Specialist|Representative/,
    ]) {
      expect(
        [...titles].some((t) => needle.test(t)),
        String(needle),
      ).toBe(true);
    }
    expect(
      [...titles].some((t) => /Leiter|Geschäftsführer|Directeur|Directrice|Responsable|Gerente|Director de|Diretor|Entwickler|Ingénieur|Desarrollador/.test(t)),
    ).toBe(true);
    const withPhone = p.filter((x) => x.phone).length / p.length;
    expect(withPhone > 0.3 && withPhone < 0.7).toBe(true);
    expect(p.some((x) => !x.phone && !x.mobile)).toBe(true);
  });

  it('mostly sit where their company is', () => {
    const hq = new Map(readRows(dirs.a, 'companies').map((c) => [c.company_id, c]));
    const p = people();
    const same = p.filter((x) => hq.get(x.company_id)!.country === x.country).length;
    expect(same / p.length).toBeGreaterThan(0.75);
  });
});

describe('signals', () => {
  it('intent: known companies and topics, strength 0–100, dated in the 90 days before 2026-11-01', () => {
    const ids = new Set(readRows(dirs.a, 'companies').map((r) => r.company_id));
    const topics = new Set<string>(INTENT_TOPICS);
    const rows = readRows(dirs.a, 'intent');
    expect(new Set(rows.map((r) => r.company_id)).size).toBeGreaterThan(COMPANIES * 0.15);
    for (const r of rows) {
      expect(ids.has(r.company_id)).toBe(true);
      expect(topics.has(r.topic), r.topic).toBe(true);
      expect(Number(r.strength) >= 0 && Number(r.strength) <= 100).toBe(true);
      expect(r.observed_at >= '2026-08-03' && r.observed_at <= '2026-10-31', r.observed_at).toBe(true);
    }
  });

  it('engagement: known people and activities, counts ≥ 1, dated in the window', () => {
    const ids = new Set(readRows(dirs.a, 'people').map((r) => r.people_id));
    const activities = new Set(ENGAGEMENT_ACTIVITIES.map(([a]) => a));
    const rows = readRows(dirs.a, 'engagement');
    expect(rows.length).toBeGreaterThan(COMPANIES * 0.5);
    for (const r of rows) {
      expect(ids.has(r.people_id)).toBe(true);
      expect(activities.has(r.activity)).toBe(true);
      expect(Number(r.count)).toBeGreaterThanOrEqual(1);
      expect(r.observed_at >= '2026-08-03' && r.observed_at <= '2026-10-31').toBe(true);
    }
    expect(new Set(rows.map((r) => r.activity))).toEqual(activities);
  });
});

describe('options', () => {
  it('rejects a number of companies that is not a positive integer', async () => {
    await expect(generateSources({ out: join(root, 'bad'), companies: 0, seed: 1 })).rejects.toThrow(RangeError);
    await expect(generateSources({ out: join(root, 'bad'), companies: 2.5, seed: 1 })).rejects.toThrow(RangeError);
  });

  it('rejects more companies than the address plan holds', async () => {
    await expect(generateSources({ out: join(root, 'bad'), companies: MAX_COMPANIES + 1, seed: 1 })).rejects.toThrow(RangeError);
  });

  it.each([false, true])('fails with the file system’s error when a file cannot be written (worker: %s)', async (parallel) => {
    const out = join(root, `unwritable-${parallel}`);
    mkdirSync(join(out, SOURCE_FILES.people), { recursive: true });
    await expect(generateSources({ out, companies: 600, seed: 1, parallel })).rejects.toThrow(/EISDIR/);
  });

  it('works down to a single company', async () => {
    const s = await generateSources({ out: join(root, 'one'), companies: 1, seed: 1 });
    expect(s.files.companies.rows).toBe(1);
    const file = CustomersFile.parse(JSON.parse(readFileSync(join(root, 'one', SOURCE_FILES.customers), 'utf8')));
    const ids = new Set(readRows(join(root, 'one'), 'companies').map((r) => r.company_id));
    for (const id of file.customers[0].excluded_accounts) expect(ids.has(id)).toBe(true);
  });
});
