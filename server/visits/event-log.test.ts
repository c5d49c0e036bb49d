import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEventLog, type DropReason, type EventLog, MAX_LINES_IN_FLIGHT } from './event-log.ts';

vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof import('node:fs/promises')>();
  return { ...real, appendFile: vi.fn(real.appendFile) };
});
const appendFileMock = vi.mocked(fsPromises.appendFile);

let dir: string;
let log: EventLog;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-events-'));
});
afterEach(async () => {
  await log?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('NDJSON event log', () => {
  it('appends one JSON line per event to <customer>/<day>.ndjson, in order, without blocking the caller', async () => {
    log = createEventLog({ dir, retentionDays: 30 });
    log.append('acme', '2026-11-20', { n: 1 });
    log.append('acme', '2026-11-20', { n: 2, path: '/a\nb' });
    log.append('acme', '2026-11-21', { n: 3 });
    log.append('globex', '2026-11-20', { n: 4 });
    expect(existsSync(join(dir, 'acme'))).toBe(false); // written in the background
    await log.flush();
    log.append('acme', '2026-11-20', { n: 5 });
    await log.flush();
    const lines = (f: string) =>
      readFileSync(join(dir, f), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
    expect(lines('acme/2026-11-20.ndjson')).toEqual([{ n: 1 }, { n: 2, path: '/a\nb' }, { n: 5 }]);
    expect(lines('acme/2026-11-21.ndjson')).toEqual([{ n: 3 }]);
    expect(lines('globex/2026-11-20.ndjson')).toEqual([{ n: 4 }]);
  });

  it('deletes day files older than the retention at start and on prune, keeps the rest and other files', async () => {
    const day = (ago: number, from = Date.now()) => new Date(from - ago * 86_400_000).toISOString().slice(0, 10);
    const files = [`acme/${day(40)}.ndjson`, `acme/${day(10)}.ndjson`, `acme/${day(0)}.ndjson`, 'acme/notes.txt', `globex/${day(15)}.ndjson`];
    for (const f of files) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), '{}\n');
    }
    log = createEventLog({ dir, retentionDays: 14 });
    await new Promise((r) => setTimeout(r, 100)); // the start-up prune
    expect(files.map((f) => existsSync(join(dir, f)))).toEqual([false, true, true, true, false]);
    // Five days later the 10-day-old file is past the 14 days.
    expect(await log.prune(new Date(Date.now() + 5 * 86_400_000))).toBe(1);
    expect(files.map((f) => existsSync(join(dir, f)))).toEqual([false, false, true, true, false]);
  });

  it("drops a customer's lines past its daily byte cap (counted), and other customers and days go on", async () => {
    const drops: DropReason[] = [];
    log = createEventLog({ dir, retentionDays: 30, maxDayBytes: 1000, onDrop: (r) => drops.push(r) });
    for (let i = 0; i < 100; i++) log.append('acme', '2026-11-20', { path: '/pricing', n: i });
    log.append('globex', '2026-11-20', { n: 1 });
    await log.flush();
    // A new process the same day counts what is already on disk.
    for (let i = 0; i < 5; i++) log.append('acme', '2026-11-20', { path: '/pricing', n: i });
    log.append('acme', '2026-11-21', { n: 1 });
    await log.flush();
    expect(statSync(join(dir, 'acme/2026-11-20.ndjson')).size).toBeLessThanOrEqual(1000);
    expect(drops.filter((r) => r === 'daily_cap').length).toBeGreaterThan(60);
    expect(readFileSync(join(dir, 'globex/2026-11-20.ndjson'), 'utf8')).toBe('{"n":1}\n');
    expect(readFileSync(join(dir, 'acme/2026-11-21.ndjson'), 'utf8')).toBe('{"n":1}\n');
  });

  it('keeps the disk budget by deleting the oldest days first', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);
    for (const [f, size] of [
      [`acme/${day(3)}.ndjson`, 600],
      [`globex/${day(2)}.ndjson`, 600],
      [`acme/${day(1)}.ndjson`, 600],
      [`acme/${today}.ndjson`, 600],
    ] as const) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), 'x'.repeat(size));
    }
    const errors: string[] = [];
    log = createEventLog({ dir, retentionDays: 30, maxTotalBytes: 1500, onError: (e) => errors.push(e.message) });
    await log.prune();
    expect(readdirSync(join(dir, 'acme')).sort()).toEqual([`${day(1)}.ndjson`, `${today}.ndjson`]);
    expect(readdirSync(join(dir, 'globex'))).toEqual([]);
    expect(errors.some((m) => /disk budget/.test(m))).toBe(true);
  });

  it('refuses a customer id or day that is not a plain path segment (nothing written outside its folder)', async () => {
    const drops: DropReason[] = [];
    log = createEventLog({ dir: join(dir, 'events'), retentionDays: 30, onDrop: (r) => drops.push(r) });
    log.append('../../../../tmp/x', '2026-11-20', { n: 1 });
    log.append('acme', '../../x', { n: 1 });
    await log.flush();
    expect(existsSync(join(dir, 'events'))).toBe(false);
    expect(drops).toEqual(['invalid_customer', 'invalid_customer']);
  });

  it('a file whose write hangs holds back only its own lines; memory stays bounded by the lines in flight', async () => {
    const drops: DropReason[] = [];
    const errors: string[] = [];
    let release!: () => void;
    const hung = new Promise<void>((r) => (release = r));
    const real = appendFileMock.getMockImplementation()!;
    appendFileMock.mockImplementation(async (file, data, opts) => {
      if (String(file).includes('stuck')) await hung;
      return real(file, data, opts);
    });
    try {
      log = createEventLog({ dir, retentionDays: 30, writeDeadlineMs: 100, onDrop: (r) => drops.push(r), onError: (e) => errors.push(e.message) });
      log.append('stuck', '2026-11-20', { n: 1 });
      await new Promise((r) => setTimeout(r, 20));
      log.append('acme', '2026-11-20', { n: 1 });
      await log.flush(); // returns: the stuck file's write passed its deadline
      expect(readFileSync(join(dir, 'acme/2026-11-20.ndjson'), 'utf8')).toBe('{"n":1}\n');
      expect(errors.some((m) => /stuck\/2026-11-20\.ndjson has taken over 100 ms/.test(m))).toBe(true);
      // While stuck, its new lines are dropped instead of piling up; other files keep writing.
      for (let i = 0; i < 10; i++) log.append('stuck', '2026-11-20', { n: i });
      log.append('acme', '2026-11-20', { n: 2 });
      await log.flush();
      expect(drops.filter((r) => r === 'stuck_file')).toHaveLength(10);
      expect(readFileSync(join(dir, 'acme/2026-11-20.ndjson'), 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
      release();
      await new Promise((r) => setTimeout(r, 50));
      log.append('stuck', '2026-11-20', { n: 99 });
      await log.flush();
      expect(readFileSync(join(dir, 'stuck/2026-11-20.ndjson'), 'utf8')).toBe('{"n":1}\n{"n":99}\n');
    } finally {
      release();
      appendFileMock.mockImplementation(real);
    }
  });

  it("counts lines still being written against the in-memory bound, not just one turn's", async () => {
    const drops: DropReason[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const real = appendFileMock.getMockImplementation()!;
    appendFileMock.mockImplementation(async (file, data, opts) => {
      await slow;
      return real(file, data, opts);
    });
    try {
      log = createEventLog({ dir, retentionDays: 30, writeDeadlineMs: 60_000, onDrop: (r) => drops.push(r) });
      // Many customers, many turns: each turn's lines go to a write that does not finish.
      for (let turn = 0; turn < 12; turn++) {
        for (let i = 0; i < MAX_LINES_IN_FLIGHT / 10; i++) log.append(`c${turn}-${i % 5}`, '2026-11-20', { i });
        await new Promise((r) => setImmediate(r));
      }
      expect(drops.filter((r) => r === 'queue_full').length).toBe(2 * (MAX_LINES_IN_FLIGHT / 10));
    } finally {
      release();
      appendFileMock.mockImplementation(real);
    }
  });
});
