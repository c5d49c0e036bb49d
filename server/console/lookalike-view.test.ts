import { describe, expect, it } from 'vitest';
import { freshLookalike, lookalikeDraftOf, lookalikeInWords, lookalikeRuleOf, minScoreOf, seedKey, seedOf, typedIds } from './lookalike-view.ts';
import { addCondition, draftOf, editLevel, emptyDraft, ruleInWords, ruleOf, segmentBody } from './segment-rule-view.ts';

describe('the lookalike condition of the builder', () => {
  it('loads a saved condition and gives it back as it was, for each kind of seed', () => {
    for (const c of [
      { list: 'list-1a2b', min_score: 0.7 },
      { segment: 12, min_score: 0.55 },
      { companies: ['100001', '100002'], min_score: 1 },
    ]) {
      expect(lookalikeRuleOf(lookalikeDraftOf(c))).toEqual({ ok: true, condition: c });
      expect(ruleOf(draftOf({ lookalike: c, region: ['EMEA'] }))).toEqual({ ok: true, match: { region: ['EMEA'], lookalike: c } });
    }
  });

  it('starts from a list and 0.7, and says which input stops it: the seed not chosen, a minimum out of 0–1', () => {
    let d = editLevel(emptyDraft(), 'top', (l) => addCondition(l, 'lookalike'));
    expect(d.lookalike).toEqual(freshLookalike());
    expect(ruleOf(d)).toEqual({
      ok: false,
      problems: [{ level: 'top', kind: 'lookalike', part: 'seed', message: 'Lookalike: pick the list the accounts should look like.' }],
    });
    d = { ...d, lookalike: { ...d.lookalike!, list: 'best', min_score: '1.5' } };
    expect(ruleOf(d)).toMatchObject({ ok: false, problems: [{ kind: 'lookalike', part: 'min_score' }] });
    d = { ...d, lookalike: { ...d.lookalike!, min_score: '.65' } };
    expect(ruleOf(d)).toEqual({ ok: true, match: { lookalike: { list: 'best', min_score: 0.65 } } });
    expect(segmentBody('Like our best', d, [], null)).toEqual({
      ok: true,
      body: { name: 'Like our best', match: { lookalike: { list: 'best', min_score: 0.65 } } },
    });
    // The choice of each source is kept while another is picked.
    const other = { ...d.lookalike!, source: 'companies' as const, companies: ' 100001,100002\n100001  100003 ' };
    expect(lookalikeRuleOf(other)).toEqual({ ok: true, condition: { companies: ['100001', '100002', '100003'], min_score: 0.65 } });
    expect(lookalikeRuleOf({ ...other, source: 'list' })).toEqual({ ok: true, condition: { list: 'best', min_score: 0.65 } });
    expect(seedOf({ ...other, source: 'segment' })).toMatchObject({ ok: false, part: 'seed' });
    expect(seedOf({ ...other, companies: ' , ' })).toMatchObject({ ok: false, message: expect.stringMatching(/at least one company id/) });
  });

  it('reads minimum scores and company ids as typed', () => {
    expect(['0', '0.7', '.7', '1', '1.0', '0.705'].map(minScoreOf)).toEqual([0, 0.7, 0.7, 1, 1, 0.705]);
    expect(['', '1.1', '-0.1', '0.7x', '70', '0.7001'].map(minScoreOf)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
    expect(typedIds('a, b;c\nd  a')).toEqual(['a', 'b', 'c', 'd']);
    expect(seedKey({ companies: ['b', 'a'] })).toBe(seedKey({ companies: ['a', 'b'] }));
    expect(seedKey({ list: 'a' })).not.toBe(seedKey({ companies: ['a'] }));
  });

  it('says the condition in words, with the seed’s name when it is known', () => {
    expect(lookalikeInWords({ list: 'list-1', min_score: 0.7 })).toBe('Accounts like list list-1, score at least 0.7');
    expect(lookalikeInWords({ list: 'list-1', min_score: 0.7 }, { lists: new Map([['list-1', 'Best customers']]) })).toBe(
      'Accounts like list “Best customers”, score at least 0.7',
    );
    expect(lookalikeInWords({ segment: 3, min_score: 0.5 }, { segments: new Map([[3, 'Customers']]) })).toBe(
      'Accounts like segment “Customers”, score at least 0.5',
    );
    expect(lookalikeInWords({ companies: ['1', '2', '3', '4', '5', '6'], min_score: 0.8 })).toBe(
      'Accounts like companies 1, 2, 3, 4, 5 and 1 more, score at least 0.8',
    );
    expect(ruleInWords({ industry: ['Software'], lookalike: { list: 'best', min_score: 0.7 } })).toBe(
      'Industry is Software, and Accounts like list best, score at least 0.7',
    );
  });
});
