import { describe, expect, it } from 'vitest';
import { fillGaps, Ipv6Ranks, overlay, PrecedenceTable, RunList } from './precedence.ts';

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

describe('IPv6 on ranks of the boundaries', () => {
  it('a /64 inside a /48 wins where it is, the /48 around it; sizes decide, not ranks; addresses come back exact', () => {
    const ranks = new Ipv6Ranks();
    const wide = [0x2001_0db8_0001n << 80n, ((0x2001_0db8_0001n + 1n) << 80n) - 1n] as const; // 2001:db8:1::/48
    const narrow = [0x2001_0db8_0001_0005n << 64n, (0x2001_0db8_0001_0006n << 64n) - 1n] as const; // 2001:db8:1:5::/64
    ranks.note(...wide);
    ranks.note(...narrow);
    ranks.freeze();
    const t = new PrecedenceTable();
    // The narrow one first (lower priority): it still wins by size, though it spans one rank and the wide one three.
    t.add(ranks.first(narrow[0]), ranks.last(narrow[1]), 7, Number(narrow[1] - narrow[0] + 1n));
    t.add(ranks.first(wide[0]), ranks.last(wide[1]), 9, Number(wide[1] - wide[0] + 1n));
    const runs = t.resolve();
    const back = Array.from({ length: runs.length }, (_, i) => [ranks.firstAddress(runs.first[i]), ranks.lastAddress(runs.last[i]), runs.value[i]]);
    expect(back).toEqual([
      [wide[0], narrow[0] - 1n, 9],
      [narrow[0], narrow[1], 7],
      [narrow[1] + 1n, wide[1], 9],
    ]);
  });
});
