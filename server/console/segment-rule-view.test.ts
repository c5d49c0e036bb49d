import { describe, expect, it } from 'vitest';
import { MAX_SEGMENT_GROUPS, SegmentMatch } from '../../core/customer-records.ts';
import { BUYING_STAGES, EMPLOYEE_RANGES, REVENUE_RANGES } from '../../core/vocabulary.ts';
import { MATCH_FIELDS, segmentMatches } from '../segments/evaluate.ts';
import { NewSegment } from '../segments/schema.ts';
import { ACME_SOFTWARE } from '../testing/fixtures.ts';
import {
  addCondition,
  addGroup,
  addOwners,
  addStages,
  addValues,
  BUILDER_FIELDS,
  cleanRule,
  conditionsOf,
  draftOf,
  editLevel,
  emptyDraft,
  FIELD_SPECS,
  freeFields,
  freeKinds,
  hasConditions,
  KIND_LABELS,
  MAX_DAYS,
  MAX_GROUPS,
  MAX_PAGE_VIEWS,
  MAX_PATH,
  type RuleDraft,
  removeCondition,
  removeGroup,
  removeStage,
  removeValue,
  ruleInWords,
  ruleKey,
  ruleOf,
  segmentBody,
  setOp,
  stageSuggestions,
  suggestions,
  toggleChoice,
  toggleOwnerSpecial,
  toggleStage,
  usedFields,
} from './segment-rule-view.ts';

describe('the builder fields', () => {
  it('are rule fields the server evaluates, with pickers exactly where the vocabulary is fixed', () => {
    for (const f of BUILDER_FIELDS) expect(MATCH_FIELDS[f], f).toBeDefined();
    expect(FIELD_SPECS.employee_range.choices).toBe(EMPLOYEE_RANGES);
    expect(FIELD_SPECS.revenue_range.choices).toBe(REVENUE_RANGES);
    expect(BUILDER_FIELDS.filter((f) => FIELD_SPECS[f].choices)).toEqual(['employee_range', 'revenue_range']);
    expect(BUILDER_FIELDS.filter((f) => FIELD_SPECS[f].prefix)).toEqual(['sic_prefix', 'naics_prefix']);
  });
});

describe('editing a rule', () => {
  it('adds one condition per field, offers only the free fields, and removes a condition', () => {
    let m = addCondition({}, 'industry');
    expect(m).toEqual({ industry: [] });
    expect(addCondition(m, 'industry')).toBe(m);
    m = addCondition(m, 'employee_range');
    expect(usedFields(m)).toEqual(['industry', 'employee_range']);
    expect(freeFields(m)).not.toContain('industry');
    expect(freeFields(m)).toHaveLength(BUILDER_FIELDS.length - 2);
    expect(removeCondition(m, 'industry')).toEqual({ employee_range: [] });
  });

  it('adds typed values: comma-separated, trimmed, codes upper-cased, never twice (any case)', () => {
    const r = addValues({ industry: ['Software'] }, 'industry', ' Retail,  software , Media');
    expect(r).toEqual({ ok: true, match: { industry: ['Software', 'Retail', 'Media'] } });
    expect(addValues({}, 'country_iso_code', 'us, de')).toEqual({ ok: true, match: { country_iso_code: ['US', 'DE'] } });
    expect(addValues({}, 'sic_prefix', '73')).toEqual({ ok: true, match: { sic_prefix: ['73'] } });
  });

  it('refuses values the catalog cannot hold, naming the field and the value; nothing changes', () => {
    expect(addValues({}, 'country_iso_code', 'USA')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Country: “USA” is not valid \(a two-letter/),
    });
    expect(addValues({}, 'sic_prefix', '7a')).toMatchObject({ ok: false, message: expect.stringMatching(/^SIC code: “7a”/) });
    expect(addValues({}, 'naics_prefix', '1234567')).toMatchObject({ ok: false });
    expect(addValues({}, 'employee_range', 'huge')).toMatchObject({ ok: false, message: expect.stringMatching(/one of 1-9, 10-49/) });
    expect(addValues({}, 'industry', ' , ')).toMatchObject({ ok: false, message: 'Industry: e.g. Software' });
    expect(addValues({ country_iso_code: ['US'] }, 'country_iso_code', 'DE, nope')).toMatchObject({ ok: false });
  });

  it('toggles picker values, kept in the vocabulary order; removes a typed value', () => {
    let m = toggleChoice({}, 'employee_range', '10,000+', true);
    m = toggleChoice(m, 'employee_range', '1-9', true);
    m = toggleChoice(m, 'employee_range', '1-9', true);
    expect(m).toEqual({ employee_range: ['1-9', '10,000+'] });
    expect(toggleChoice(m, 'employee_range', '1-9', false)).toEqual({ employee_range: ['10,000+'] });
    expect(removeValue({ industry: ['A', 'B'] }, 'industry', 'A')).toEqual({ industry: ['B'] });
  });
});

describe('the rule as saved, previewed and read', () => {
  it('drops conditions without values; an empty rule has no conditions', () => {
    expect(cleanRule({ industry: [], region: ['EMEA'] })).toEqual({ region: ['EMEA'] });
    expect(hasConditions({ industry: [] })).toBe(false);
    expect(hasConditions({ company_id: ['1'] })).toBe(true);
  });

  it('drops empty groups and the default op, at both levels', () => {
    expect(
      cleanRule({
        op: 'all',
        industry: ['A'],
        groups: [
          { op: 'any', region: [] },
          { op: 'all', visited: { path: '/p', days: 3 } },
        ],
      }),
    ).toEqual({
      industry: ['A'],
      groups: [{ visited: { path: '/p', days: 3 } }],
    });
    expect(hasConditions({ op: 'any', groups: [{ industry: [] }] })).toBe(false);
    expect(hasConditions({ groups: [{ page_views: { min: 1, days: 1 } }] })).toBe(true);
  });

  it('has one key whatever the field order at any depth, ignoring empty conditions and the default op', () => {
    expect(ruleKey({ industry: ['A'], region: ['B'] })).toBe(ruleKey({ region: ['B'], industry: ['A'], state: [] }));
    expect(ruleKey({ industry: ['A'] })).not.toBe(ruleKey({ industry: ['A', 'C'] }));
    expect(ruleKey({ op: 'all', groups: [{ visited: { path: '/p', days: 3 }, op: 'any' }] })).toBe(
      ruleKey({ groups: [{ op: 'any', visited: { days: 3, path: '/p' } }] }),
    );
    expect(ruleKey({ industry: ['A'], op: 'any' })).not.toBe(ruleKey({ industry: ['A'] }));
  });

  it('reads in words: AND across fields, OR within one, prefixes as "starts with", other fields kept', () => {
    expect(ruleInWords({ industry: ['Software', 'Retail', 'Media'], employee_range: ['1,000-4,999'], sic_prefix: ['73'] })).toBe(
      'Industry is Software, Retail or Media, and Employees is 1,000-4,999, and SIC code starts with 73',
    );
    expect(ruleInWords({ company_id: ['1', '2', '3', '4', '5', '6'] })).toBe('Company id is one of 6 values');
    expect(ruleInWords({ industry: [] })).toBe('matches no account yet: add a condition');
    expect(ruleInWords({ in_list: ['hot'] })).toBe('In account list is hot');
  });

  it('reads ANY as "or", a group of several as "any of (…)" / "all of (…)", a group of one as its condition', () => {
    // The agreed example (/tmp/segment-rule-shape.md): Software or SaaS in the US, and (pricing visits or a late stage).
    const example: SegmentMatch = {
      op: 'all',
      industry: ['Software', 'SaaS'],
      country_iso_code: ['US'],
      groups: [{ op: 'any', visited: { path: '/pricing*', days: 14 }, intent: { product: 'crm', stages: ['Decision', 'Purchase'] } }],
    };
    expect(ruleInWords(example)).toBe(
      'Industry is Software or SaaS, and Country is US, and any of (Visited /pricing* in the last 14 days; Intent for crm: stage Decision or Purchase)',
    );
    expect(ruleInWords({ op: 'any', industry: ['Software'], groups: [{ region: ['EMEA'], state: ['CA'] }, { page_views: { min: 1, days: 1 } }] })).toBe(
      'Industry is Software, or all of (Region is EMEA; State is CA), or At least 1 page view in the last day',
    );
  });

  it('reads intent with the product’s display name when known, stages and/or a minimum score', () => {
    const products = [{ name: 'cdp', display_name: 'Customer Data Platform' }];
    expect(ruleInWords({ intent: { product: 'cdp', min_score: 60 } }, products)).toBe('Intent for Customer Data Platform: score at least 60');
    expect(ruleInWords({ intent: { product: 'cdp', stages: ['Decision'], min_score: 0 } }, products)).toBe(
      'Intent for Customer Data Platform: stage Decision with score at least 0',
    );
    expect(ruleInWords({ intent: { product: 'gone', stages: ['Target'] } }, products)).toBe('Intent for gone: stage Target');
    expect(ruleInWords({ page_views: { min: 12000, days: 400 } })).toBe('At least 12,000 page views in the last 400 days');
  });

  it('reads the CRM conditions: owners (any / none in words), stages one of and not one of', () => {
    expect(ruleInWords({ crm_owner: ['jane@acme.com', 'joe@acme.com'] })).toBe('CRM owner is jane@acme.com or joe@acme.com');
    expect(ruleInWords({ crm_owner: ['none'] })).toBe('Has no CRM owner');
    expect(ruleInWords({ crm_owner: ['ANY'] })).toBe('Has a CRM owner');
    expect(ruleInWords({ crm_owner: ['jane@acme.com', 'none'] })).toBe('CRM owner is jane@acme.com or has no CRM owner');
    expect(ruleInWords({ crm_stage: { in: ['opportunity', 'salesqualifiedlead'] } })).toBe('CRM stage is opportunity or salesqualifiedlead');
    expect(ruleInWords({ crm_stage: { not_in: ['customer'] } })).toBe('CRM stage is not customer');
    expect(ruleInWords({ crm_stage: { not_in: ['customer', 'evangelist'] } })).toBe('CRM stage is none of customer, evangelist');
    expect(ruleInWords({ industry: ['Software'], crm_stage: { in: ['opportunity'], not_in: ['customer'] } })).toBe(
      'Industry is Software, and CRM stage is opportunity and not customer',
    );
  });

  it('suggests the values other segments use, in their groups too', () => {
    expect(suggestions([{ industry: ['Software', 'retail'] }, { industry: ['Software'] }, { region: ['EMEA'] }], 'industry')).toEqual(['retail', 'Software']);
    expect(suggestions([{ groups: [{ industry: ['Media'] }] }], 'industry')).toEqual(['Media']);
  });
});

describe('the builder state and the rule, both ways', () => {
  const products = [
    { name: 'cdp', display_name: 'Customer Data Platform' },
    { name: 'sales-intelligence', display_name: 'Sales Intelligence' },
  ];
  const rules: Record<string, SegmentMatch> = {
    'a flat legacy rule': { industry: ['Software'], employee_range: ['1,000-4,999', '10,000+'], company_id: ['c1'], in_list: ['hot'] },
    'a grouped rule': {
      op: 'any',
      country_iso_code: ['US'],
      groups: [
        { op: 'any', region: ['EMEA'], sic_prefix: ['73'] },
        { industry: ['Retail'], naics_prefix: ['4451'] },
      ],
    },
    'an intent rule': { intent: { product: 'cdp', stages: ['Decision', 'Purchase'], min_score: 70 }, groups: [{ intent: { product: 'x', min_score: 0 } }] },
    'a behaviour rule': {
      visited: { path: '/pricing*', days: 14 },
      page_views: { min: 5, days: 400 },
      groups: [{ op: 'any', visited: { path: '/blog/*', days: 1 } }],
    },
    'a CRM rule': {
      crm_owner: ['Jane@Acme.com', 'none'],
      crm_stage: { in: ['opportunity'], not_in: ['customer'] },
      groups: [{ op: 'any', crm_stage: { not_in: ['Customer - Direct'] }, crm_owner: ['any'], industry: ['Software'] }],
    },
  };

  for (const [what, rule] of Object.entries(rules))
    it(`loads ${what} into the builder and gives it back as it was, a rule the API takes`, () => {
      expect(SegmentMatch.safeParse(rule).success).toBe(true);
      const back = ruleOf(draftOf(rule));
      expect(back).toEqual({ ok: true, match: rule });
      if (back.ok) expect(NewSegment.safeParse({ name: 'x', match: back.match }).success).toBe(true);
    });

  it('loads the default op explicitly given, and gives it back left out (the same meaning)', () => {
    const d = draftOf({ op: 'all', industry: ['A'], groups: [{ op: 'all', region: ['B'] }] });
    expect(d.op).toBe('all');
    expect(d.groups).toEqual([{ key: 1, op: 'all', region: ['B'] }]);
    expect(ruleOf(d)).toEqual({ ok: true, match: { industry: ['A'], groups: [{ region: ['B'] }] } });
  });

  it('shows numbers as typed, and each condition of a level in the builder order', () => {
    const d = draftOf(rules['a behaviour rule']);
    expect(d.visited).toEqual({ path: '/pricing*', days: '14' });
    expect(d.page_views).toEqual({ min: '5', days: '400' });
    expect(draftOf(rules['an intent rule']).intent).toEqual({ product: 'cdp', stages: ['Decision', 'Purchase'], min_score: '70' });
    expect(conditionsOf(draftOf({ page_views: { min: 1, days: 1 }, in_list: ['hot'], intent: { product: 'p', min_score: 1 }, industry: ['A'] }))).toEqual([
      'industry',
      'in_list',
      'intent',
      'page_views',
    ]);
  });

  it('builds a grouped rule: the top switched to ANY, a group of the other op, conditions added to one group only', () => {
    let d = setOp(emptyDraft(), 'top', 'any');
    d = editLevel(d, 'top', (l) => addCondition(l, 'industry'));
    d = editLevel(d, 'top', (l) => ({ ...l, industry: ['Software'] }));
    d = addGroup(d);
    d = addGroup(d);
    expect(d.groups.map((g) => [g.key, g.op])).toEqual([
      [1, 'all'],
      [2, 'all'],
    ]);
    d = editLevel(d, 2, (l) => addCondition(l, 'intent', products));
    expect(d.groups[1].intent).toEqual({ product: 'cdp', stages: [], min_score: '' });
    d = editLevel(d, 2, (l) => ({ ...l, intent: toggleStage(toggleStage(l.intent!, 'Purchase', true), 'Decision', true) }));
    d = editLevel(d, 2, (l) => addCondition(l, 'visited'));
    d = editLevel(d, 2, (l) => ({ ...l, visited: { path: '/pricing*', days: '14' } }));
    d = setOp(d, 2, 'any');
    expect(d.groups[0]).toEqual({ key: 1, op: 'all' });
    // The empty first group is left out; the second is the one condition it makes.
    expect(ruleOf(d)).toEqual({
      ok: true,
      match: {
        op: 'any',
        industry: ['Software'],
        groups: [{ op: 'any', intent: { product: 'cdp', stages: ['Decision', 'Purchase'] }, visited: { path: '/pricing*', days: 14 } }],
      },
    });
    // A new group after a removal never takes a live key (Preact keeps each group's inputs by it).
    d = addGroup(removeGroup(d, 1));
    expect(d.groups.map((g) => g.key)).toEqual([2, 3]);
    expect(addGroup(emptyDraft()).groups[0].op).toBe('any');
  });

  it('holds at most MAX_GROUPS groups, as the schema does', () => {
    expect(MAX_GROUPS).toBe(MAX_SEGMENT_GROUPS);
    let d = emptyDraft();
    for (let i = 0; i < MAX_GROUPS + 3; i++) d = addGroup(d);
    expect(d.groups).toHaveLength(MAX_GROUPS);
  });

  it('offers intent only when the customer has a product, and each behaviour condition once per level', () => {
    const d: RuleDraft = { op: 'all', groups: [], visited: { path: '', days: '30' } };
    expect(freeKinds(d, true)).toEqual([...BUILDER_FIELDS, 'intent', 'page_views', 'engaged', 'event', 'crm_owner', 'crm_stage', 'lookalike', 'topic']);
    expect(freeKinds(d, false)).toEqual([...BUILDER_FIELDS, 'page_views', 'engaged', 'event', 'crm_owner', 'crm_stage', 'lookalike', 'topic']);
    expect(freeKinds({ ...d, crm_stage: { in: [], not_in: [] } }, false)).toEqual([
      ...BUILDER_FIELDS,
      'page_views',
      'engaged',
      'event',
      'crm_owner',
      'lookalike',
      'topic',
    ]);
    expect(addCondition(d, 'visited')).toBe(d);
    expect(addCondition(d, 'page_views').page_views).toEqual({ min: '', days: '30' });
    expect(removeCondition(d, 'visited')).toEqual({ op: 'all', groups: [] });
    expect(KIND_LABELS.visited).toBe('Visited a page');
  });

  it('edits the CRM owner: emails typed and checked, any and none as checkboxes, nothing twice', () => {
    let d = editLevel(emptyDraft(), 'top', (l) => addCondition(l, 'crm_owner'));
    expect(d.crm_owner).toEqual([]);
    expect(conditionsOf(d)).toEqual(['crm_owner']);
    const added = addOwners(d.crm_owner!, ' jane@acme.com, JANE@acme.com ,None');
    expect(added).toEqual({ ok: true, owners: ['jane@acme.com', 'none'] });
    expect(addOwners([], 'jane')).toEqual({ ok: false, message: 'CRM owner: “jane” is not an email address (or any / none)' });
    expect(addOwners([], ' , ')).toMatchObject({ ok: false, message: expect.stringMatching(/^CRM owner: type an owner/) });
    d = editLevel(d, 'top', (l) => ({ ...l, crm_owner: toggleOwnerSpecial(toggleOwnerSpecial(added.ok ? added.owners : [], 'none', false), 'any', true) }));
    expect(ruleOf(d)).toEqual({ ok: true, match: { crm_owner: ['jane@acme.com', 'any'] } });
    // Without values the condition is an untouched one: left out.
    expect(ruleOf(editLevel(d, 'top', (l) => ({ ...l, crm_owner: [] })))).toEqual({ ok: true, match: {} });
  });

  it('edits the CRM stage: values it is one of and values it is not one of, each side left out when empty', () => {
    let d = editLevel(emptyDraft(), 'top', (l) => addCondition(l, 'crm_stage'));
    expect(d.crm_stage).toEqual({ in: [], not_in: [] });
    expect(ruleOf(d)).toEqual({ ok: true, match: {} });
    const r = addStages(d.crm_stage!, 'not_in', 'customer, Customer,evangelist');
    expect(r).toEqual({ ok: true, stage: { in: [], not_in: ['customer', 'evangelist'] } });
    expect(addStages(d.crm_stage!, 'in', ' ')).toMatchObject({ ok: false });
    expect(addStages(d.crm_stage!, 'in', 'x'.repeat(201))).toEqual({ ok: false, message: 'CRM stage: at most 200 characters' });
    d = editLevel(d, 'top', (l) => ({ ...l, crm_stage: r.ok ? removeStage(r.stage, 'not_in', 'evangelist') : l.crm_stage }));
    expect(ruleOf(d)).toEqual({ ok: true, match: { crm_stage: { not_in: ['customer'] } } });
    const both = ruleOf(editLevel(d, 'top', (l) => ({ ...l, crm_stage: { in: ['opportunity'], not_in: ['customer'] } })));
    expect(both).toEqual({ ok: true, match: { crm_stage: { in: ['opportunity'], not_in: ['customer'] } } });
    if (both.ok) expect(SegmentMatch.safeParse(both.match).success).toBe(true);
    expect(stageSuggestions([{ groups: [{ crm_stage: { in: ['Renewal'] } }] }]).slice(0, 2)).toEqual(['Renewal', 'subscriber']);
    expect(stageSuggestions([])).toContain('customer');
  });

  it('keeps stages in the funnel order', () => {
    const i = toggleStage(toggleStage({ product: 'p', stages: [], min_score: '' }, 'Purchase', true), 'Target', true);
    expect(i.stages).toEqual(['Target', 'Purchase']);
    expect(toggleStage(i, 'Purchase', false).stages).toEqual(['Target']);
    expect(BUYING_STAGES.filter((s) => i.stages.includes(s))).toEqual(i.stages);
  });

  it('leaves out a behaviour condition that says nothing yet (like a field without values)', () => {
    const d: RuleDraft = {
      op: 'all',
      industry: ['A'],
      intent: { product: 'cdp', stages: [], min_score: ' ' },
      visited: { path: '', days: '30' },
      page_views: { min: '', days: 'x' },
      groups: [{ key: 1, op: 'any', visited: { path: '', days: '30' } }],
    };
    expect(ruleOf(d)).toEqual({ ok: true, match: { industry: ['A'] } });
  });

  it('names the level, condition and input of what cannot be sent; the schema refuses each as well', () => {
    const cases: [RuleDraft, string, string, unknown][] = [
      [{ op: 'all', groups: [], visited: { path: 'pricing', days: '14' } }, 'path', 'starts with /', { visited: { path: 'pricing', days: 14 } }],
      [{ op: 'all', groups: [], visited: { path: '/p?x=1', days: '14' } }, 'path', 'holds no ?', { visited: { path: '/p?x=1', days: 14 } }],
      [
        { op: 'all', groups: [], visited: { path: `/${'a'.repeat(MAX_PATH)}`, days: '14' } },
        'path',
        'at most 500',
        { visited: { path: `/${'a'.repeat(MAX_PATH)}`, days: 14 } },
      ],
      [{ op: 'all', groups: [], visited: { path: '/p', days: '0' } }, 'days', 'from 1 to 400', { visited: { path: '/p', days: 0 } }],
      [{ op: 'all', groups: [], visited: { path: '/p', days: '401' } }, 'days', 'from 1 to 400', { visited: { path: '/p', days: MAX_DAYS + 1 } }],
      [{ op: 'all', groups: [], page_views: { min: '0', days: '7' } }, 'min', 'from 1 to 1,000,000', { page_views: { min: 0, days: 7 } }],
      [{ op: 'all', groups: [], page_views: { min: '2.5', days: '7' } }, 'min', 'whole number', { page_views: { min: 2.5, days: 7 } }],
      [{ op: 'all', groups: [], page_views: { min: '1000001', days: '7' } }, 'min', 'from 1', { page_views: { min: MAX_PAGE_VIEWS + 1, days: 7 } }],
      [{ op: 'all', groups: [], page_views: { min: '3', days: '' } }, 'days', 'from 1 to 400', { page_views: { min: 3 } }],
      [
        { op: 'all', groups: [], intent: { product: 'cdp', stages: [], min_score: '101' } },
        'min_score',
        'from 0 to 100',
        { intent: { product: 'cdp', min_score: 101 } },
      ],
      [
        { op: 'all', groups: [], intent: { product: '', stages: ['Decision'], min_score: '' } },
        'product',
        'pick a product',
        { intent: { product: '', stages: ['Decision'] } },
      ],
    ];
    for (const [draft, part, words, naive] of cases) {
      const r = ruleOf(draft);
      expect(r.ok, JSON.stringify(draft)).toBe(false);
      if (r.ok) continue;
      expect(r.problems).toEqual([expect.objectContaining({ level: 'top', part, message: expect.stringContaining(words) })]);
      expect(SegmentMatch.safeParse(naive).success, JSON.stringify(naive)).toBe(false);
    }
    // A problem in a group says which group.
    const grouped = ruleOf({ op: 'all', industry: ['A'], groups: [{ key: 7, op: 'any', visited: { path: '/p', days: '999' } }] });
    expect(grouped).toEqual({ ok: false, problems: [expect.objectContaining({ level: 7, kind: 'visited', part: 'days' })] });
    // The bounds themselves are rules.
    const edge = ruleOf({
      op: 'all',
      groups: [],
      visited: { path: `/${'a'.repeat(MAX_PATH - 1)}`, days: String(MAX_DAYS) },
      page_views: { min: String(MAX_PAGE_VIEWS), days: '1' },
      intent: { product: 'p', stages: [], min_score: '0' },
    });
    expect(edge.ok).toBe(true);
    if (edge.ok) expect(SegmentMatch.safeParse(edge.match).success).toBe(true);
  });
});

describe('saving', () => {
  const others = [
    { id: 101, name: 'Enterprise Software' },
    { id: 102, name: 'EMEA' },
  ];
  const draft = (match: SegmentMatch) => draftOf(match);

  it('sends the trimmed name and the clean rule, which the API schema takes and the server evaluates', () => {
    const built = editLevel(draft({ industry: ['software'], state: [] }), 'top', (l) => toggleChoice(l, 'employee_range', '1,000-4,999', true));
    const r = segmentBody('  Big software ', built, others, null);
    expect(r).toEqual({ ok: true, body: { name: 'Big software', match: { industry: ['software'], employee_range: ['1,000-4,999'] } } });
    if (!r.ok) return;
    expect(NewSegment.safeParse(r.body).success).toBe(true);
    // The builder's values are what the catalog stores (case-insensitive): the fixture company matches.
    expect(segmentMatches(r.body.match, { ...ACME_SOFTWARE, industry: 'Software', employee_range: '1,000-4,999' })).toBe(true);
  });

  it('sends a grouped rule with ANY exactly as built', () => {
    const d = editLevel(addGroup(setOp(draft({ country_iso_code: ['US'] }), 'top', 'all')), 1, (l) => ({
      ...l,
      visited: { path: '/pricing*', days: '14' },
      intent: { product: 'crm', stages: ['Decision', 'Purchase'], min_score: '' },
    }));
    const r = segmentBody('Hot US', d, others, null);
    expect(r).toEqual({
      ok: true,
      body: {
        name: 'Hot US',
        match: {
          country_iso_code: ['US'],
          groups: [{ op: 'any', intent: { product: 'crm', stages: ['Decision', 'Purchase'] }, visited: { path: '/pricing*', days: 14 } }],
        },
      },
    });
    if (r.ok) expect(NewSegment.safeParse(r.body).success).toBe(true);
  });

  it('refuses a missing, long or taken name (not the segment being edited), an empty rule and a rule with a problem', () => {
    const emea = draft({ region: ['EMEA'] });
    expect(segmentBody(' ', emea, others, null)).toMatchObject({ ok: false, field: 'name' });
    expect(segmentBody('x'.repeat(201), emea, others, null)).toMatchObject({ ok: false, field: 'name' });
    expect(segmentBody('enterprise SOFTWARE', emea, others, null)).toMatchObject({
      ok: false,
      field: 'name',
      message: 'Name: the segment “Enterprise Software” has this name already.',
    });
    expect(segmentBody('Enterprise software', emea, others, 101)).toMatchObject({ ok: true });
    expect(segmentBody('New', draft({ industry: [] }), others, null)).toMatchObject({
      ok: false,
      field: 'rule',
      message: expect.stringContaining('add at least one condition'),
    });
    expect(segmentBody('New', { op: 'any', groups: [{ key: 1, op: 'all' }] }, others, null)).toMatchObject({ ok: false, field: 'rule' });
    const bad = {
      ...emea,
      groups: [
        { key: 4, op: 'all' as const },
        { key: 9, op: 'all' as const, page_views: { min: '-1', days: '3' } },
      ],
    };
    expect(segmentBody('New', bad, others, null)).toMatchObject({
      ok: false,
      field: 'rule',
      message: expect.stringMatching(/^Rule \(group 2\): Page views: the minimum/),
      problem: { level: 9, kind: 'page_views', part: 'min' },
    });
  });
});
