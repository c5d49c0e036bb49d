import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChargeRequest, RateLimitRequest } from '../metering/service.ts';
import { OutageMeter } from './journal.ts';

vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof import('node:fs/promises')>();
  return { ...real, open: vi.fn(real.open) };
});

let dir: string;
let meter: OutageMeter;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-outage-meter-'));
  meter = new OutageMeter({ journalDir: dir, allowance: 5 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
const visit = (ip: string, nowMs = t0 + 1000): RateLimitRequest => ({
  customer_id: 'acme',
  counters: [
    { key: `tag:t:ip:${ip}`, limit: 6 },
    { key: 'tag:t', limit: 10 },
  ],
  windowMs: 60_000,
  nowMs,
  degradable: true,
});
const admitted = (hits: { allowed: boolean }[]) => hits.every((h) => h.allowed);

describe('local rate limits while the shared store is down', () => {
  it('count a request refused by one counter against none of them, so one visitor cannot spend the tag-wide share', () => {
    // Two live nodes: this node's share is 3 per visitor and 5 for the tag.
    meter.nodes = 2;
    const fromA = Array.from({ length: 10 }, () => meter.hitRateLimits(visit('A')));
    expect(fromA.map(admitted)).toEqual([...Array(3).fill(true), ...Array(7).fill(false)]);
    expect(fromA[9].map((h) => [h.allowed, h.remaining])).toEqual([
      [false, 0],
      [true, 1],
    ]);
    const fromB = Array.from({ length: 3 }, () => meter.hitRateLimits(visit('B')));
    expect(fromB.map((h) => h.map((c) => c.allowed))).toEqual([
      [true, true],
      [true, true],
      [true, false],
    ]);
    // Refused by the tag's share, B's third request left B's own counter at 2.
    expect(meter.hitRateLimits({ ...visit('B'), counters: [{ key: 'tag:t:ip:B', limit: 6 }] })[0]).toMatchObject({ allowed: true, remaining: 0 });
    expect(meter.hitRateLimits(visit('C')).map((c) => c.allowed)).toEqual([true, false]);
    // The next window starts every counter over.
    expect(admitted(meter.hitRateLimits(visit('A', t0 + 60_000)))).toBe(true);
  });
});

describe('the outage journal', () => {
  const charge = (i: number): ChargeRequest => ({
    customer_id: 'acme',
    api: 'identification',
    pool: 'identification',
    record: `10.0.0.${i}`,
    period: 'year-0',
    quota: 100,
    dedupe_key: null,
    month: '2026-11',
    token_id: null,
    partner: null,
    at: '2026-11-10T00:00:00Z',
  });

  it('is flushed to stable storage (fdatasync) before charges are answered: once per turn for all of its charges', async () => {
    const datasyncs: string[] = [];
    const open = vi.mocked(fsPromises.open);
    const real = open.getMockImplementation()!;
    open.mockImplementation(async (...args) => {
      const fh = await real(...args);
      const datasync = fh.datasync.bind(fh);
      fh.datasync = async () => {
        datasyncs.push(String(args[0]));
        return datasync();
      };
      return fh;
    });
    try {
      for (let i = 0; i < 3; i++) expect(meter.charge(charge(i))?.outcome).toBe('charged');
      await Promise.all([meter.synced(), meter.synced(), meter.synced()]);
      expect(datasyncs).toHaveLength(1);
      expect(datasyncs[0]).toMatch(/\.jsonl$/);
      expect(readFileSync(datasyncs[0], 'utf8').trim().split('\n')).toHaveLength(3);
      meter.charge(charge(3));
      await meter.synced();
      expect(datasyncs).toHaveLength(2);
    } finally {
      open.mockImplementation(real);
    }
  });
});
