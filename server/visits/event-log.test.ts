import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventLog, type EventLog } from './event-log.ts';

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
    const lines = (f: string) => readFileSync(join(dir, f), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
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
});
