import { describe, expect, it } from 'vitest';
import { fillGaps, overlay, PrecedenceTable, RunList } from './precedence.ts';

const list = (runs: RunList): [number, number, number][] => Array.from({ length: runs.length }, (_, i) => [runs.first[i], runs.last[i], runs.value[i]]);

describe('precedence between sources', () => {
  it('the more specific network wins, whatever the source', () => {
    const t = new PrecedenceTable();
    t.add(0, 99, 1); // low-priority source, small network
    t.add(0, 255, 2); // high-priority source, big network
    expect(list(t.resolve())).toEqual([
      [0, 99, 1],
      [100, 255, 2],
    ]);
  });

  it('equal networks: the source added later (higher priority) wins', () => {
    const t = new PrecedenceTable();
    t.add(10, 19, 1);
    t.add(10, 19, 2);
    expect(list(t.resolve())).toEqual([[10, 19, 2]]);
  });

  it('overlay splits runs where the attribute networks begin and end', () => {
    const base = new RunList();
    base.push(0, 99, 1);
    base.push(200, 299, 2);
    const over = new RunList();
    over.push(50, 249, 7);
    over.push(290, 400, 8);
    expect(list(overlay(base, over, (b, o) => b * 10 + Math.max(o, 0)))).toEqual([
      [0, 49, 10],
      [50, 99, 17],
      [200, 249, 27],
      [250, 289, 20],
      [290, 299, 28],
    ]);
  });

  it('resolve can leave networks out (what the import does with networks that say nothing)', () => {
    const t = new PrecedenceTable();
    t.add(0, 255, 1);
    t.add(0, 99, 2);
    expect(list(t.resolve((v) => v !== 2))).toEqual([[0, 255, 1]]);
  });

  it('fillGaps: the primary runs, and the secondary only where the primary has none', () => {
    const primary = new RunList();
    primary.push(10, 19, 1);
    primary.push(30, 39, 2);
    const secondary = new RunList();
    secondary.push(0, 14, 7);
    secondary.push(18, 50, 8);
    expect(list(fillGaps(primary, secondary))).toEqual([
      [0, 9, 7],
      [10, 19, 1],
      [20, 29, 8],
      [30, 39, 2],
      [40, 50, 8],
    ]);
    expect(list(fillGaps(new RunList(), secondary))).toEqual([
      [0, 14, 7],
      [18, 50, 8],
    ]);
  });

  it('adjacent runs with the same value merge', () => {
    const runs = new RunList();
    runs.push(0, 9, 1);
    runs.push(10, 19, 1);
    runs.push(21, 30, 1);
    expect(list(runs)).toEqual([
      [0, 19, 1],
      [21, 30, 1],
    ]);
  });
});
