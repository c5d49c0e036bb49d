import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger, FLUSH_MS, infoLineWriter, isoTimeOncePerMs } from './logger.ts';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let out = '';
  stream.on('data', (d: Buffer) => (out += d.toString()));
  return { stream, text: () => out };
}

describe('createLogger', () => {
  it('writes one JSON object per line, with level names, and masks every message', async () => {
    const { stream, text } = capture();
    const log = createLogger('info', { destination: stream });
    log.info({ request_id: 'r1', status: 200 }, 'request');
    log.error('lookup for jane.doe@example.com with Token Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789AbCd failed');
    await new Promise((r) => setImmediate(r));
    const [first, second] = text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(first).toMatchObject({ level: 'info', request_id: 'r1', status: 200, msg: 'request', time: expect.any(String) });
    expect(second).toMatchObject({ level: 'error', msg: 'lookup for j***@example.com with Token *** failed' });
  });

  it('keeps SVC_LOG levels: error drops info lines, silent drops everything', async () => {
    const err = capture();
    createLogger('error', { destination: err.stream }).info('hidden');
    const silent = capture();
    createLogger('silent', { destination: silent.stream }).error('hidden');
    await new Promise((r) => setImmediate(r));
    expect(err.text()).toBe('');
    expect(silent.text()).toBe('');
  });

  it('writes human-readable lines in pretty mode (what a terminal gets)', async () => {
    const { stream, text } = capture();
    createLogger('info', { destination: stream, pretty: true }).info({ status: 200 }, 'listening');
    await new Promise((r) => setTimeout(r, 20));
    expect(text()).toMatch(/INFO.*listening/);
    expect(text()).toMatch(/status: 200/);
    expect(text()).not.toContain('{"level"');
  });
});

describe('infoLineWriter', () => {
  it('writes the line pino writes for the same fields: level, time, pid, the fields in order', async () => {
    const { stream, text } = capture();
    const log = createLogger('info', { destination: stream });
    const fields = {
      request_id: 'r1',
      method: 'GET',
      route: '/v3/company/details',
      path: '/a "quoted" \\ path',
      status: 200,
      duration_ms: 0.25,
      customer: null,
      credits: 1,
      msg: 'request',
    };
    log.info(fields);
    infoLineWriter(log)!(
      ',"request_id":"r1","method":"GET","route":"/v3/company/details","path":"/a \\"quoted\\" \\\\ path","status":200,"duration_ms":0.25,"customer":null,"credits":1,"msg":"request"',
    );
    await new Promise((r) => setImmediate(r));
    const [byPino, byWriter] = text()
      .trim()
      .split('\n')
      .map((l) => l.replace(/"time":"[^"]+"/, '"time":"T"'));
    expect(byWriter).toBe(byPino);
    expect(Object.keys(JSON.parse(byWriter))).toEqual(['level', 'time', 'pid', ...Object.keys(fields)]);
    expect(JSON.parse(byWriter).path).toBe(fields.path);
  });

  it('goes through pino-pretty too (what a terminal gets)', async () => {
    const { stream, text } = capture();
    infoLineWriter(createLogger('info', { destination: stream, pretty: true }))!(',"route":"/v3/company/details","status":200,"msg":"request"');
    await new Promise((r) => setTimeout(r, 20));
    expect(text()).toMatch(/INFO.*request/);
    expect(text()).toMatch(/status: 200/);
  });

  it('is there only when info lines are logged', () => {
    expect(infoLineWriter(createLogger('info', { destination: new PassThrough() }))).toBeTypeOf('function');
    expect(infoLineWriter(createLogger('error', { destination: new PassThrough() }))).toBeUndefined();
    expect(infoLineWriter(createLogger('silent', { destination: new PassThrough() }))).toBeUndefined();
  });
});

describe('isoTimeOncePerMs', () => {
  it("is pino's isoTime, formatted again only when the millisecond changes", () => {
    let now = Date.UTC(2026, 10, 25, 14, 42, 37, 902);
    const time = isoTimeOncePerMs(() => now);
    expect(time()).toBe(',"time":"2026-11-25T14:42:37.902Z"');
    expect(time()).toBe(',"time":"2026-11-25T14:42:37.902Z"');
    now += 1;
    expect(time()).toBe(',"time":"2026-11-25T14:42:37.903Z"');
  });
});

describe('stdout destination (buffered)', () => {
  const logger = fileURLToPath(new URL('./logger.ts', import.meta.url));

  /** Runs a script with the real logger on stdout (a pipe: not a terminal, so JSON lines), collecting its output by arrival time. */
  async function runScript(body: string): Promise<{ chunks: { at: number; text: string }[]; code: number | null }> {
    const dir = mkdtempSync(join(tmpdir(), 'svc-logger-'));
    try {
      const script = join(dir, 'script.mts');
      writeFileSync(script, `import { createLogger } from ${JSON.stringify(logger)};\n${body}\n`);
      const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'ignore'] });
      const t0 = Date.now();
      const chunks: { at: number; text: string }[] = [];
      child.stdout.on('data', (d: Buffer) => chunks.push({ at: Date.now() - t0, text: d.toString() }));
      const code = await new Promise<number | null>((r) => child.once('close', r));
      return { chunks, code };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  const linesOf = (chunks: { text: string }[]) =>
    chunks
      .map((c) => c.text)
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; n?: number; pid: number });

  it('writes a lone line within FLUSH_MS on a quiet server, well before the process ends', async () => {
    const { chunks, code } = await runScript(`
      const log = createLogger('info');
      log.info('started');
      await new Promise((r) => setTimeout(r, 1500));
      log.info('ending');
    `);
    expect(code).toBe(0);
    const first = chunks.find((c) => c.text.includes('started'))!;
    const last = chunks.find((c) => c.text.includes('ending'))!;
    // Arrival is measured from spawn (which includes loading tsx); the line must come long before the end.
    expect(last.at - first.at).toBeGreaterThan(1000);
    expect(linesOf(chunks).map((l) => l.msg)).toEqual(['started', 'ending']);
    expect(FLUSH_MS).toBeLessThan(1000);
  }, 20_000);

  it('writes every buffered line, in order, when the process exits at once', async () => {
    const { chunks, code } = await runScript(`
      const log = createLogger('info');
      for (let n = 0; n < 5000; n++) log.info({ n }, 'line');
      await new Promise((r) => setTimeout(r, 0));
      for (let n = 5000; n < 5100; n++) log.info({ n }, 'line');
      process.exit(3);
    `);
    expect(code).toBe(3);
    expect(linesOf(chunks).map((l) => l.n)).toEqual(Array.from({ length: 5100 }, (_, n) => n));
  }, 20_000);

  it('writes every buffered line when an uncaught exception ends the process', async () => {
    const { chunks, code } = await runScript(`
      const log = createLogger('info');
      for (let n = 0; n < 3000; n++) log.info({ n }, 'line');
      setTimeout(() => {
        throw new Error('boom');
      }, 0);
    `);
    expect(code).toBe(1);
    expect(linesOf(chunks).map((l) => l.n)).toEqual(Array.from({ length: 3000 }, (_, n) => n));
  }, 20_000);

  it('keeps the lines of processes sharing one stdout pipe whole (serve --workers)', async () => {
    const { chunks, code } = await runScript(`
      import { spawn } from 'node:child_process';
      if (process.argv[2] === 'child') {
        const log = createLogger('info');
        for (let n = 0; n < 10000; n++) log.info({ n, pad: 'x'.repeat(200) }, 'line');
      } else {
        const kids = [0, 1, 2].map(() => spawn(process.execPath, [...process.execArgv, process.argv[1], 'child'], { stdio: ['ignore', 'inherit', 'inherit'] }));
        await Promise.all(kids.map((k) => new Promise((r) => k.once('exit', r))));
      }
    `);
    expect(code).toBe(0);
    const byPid = new Map<number, number[]>();
    for (const l of linesOf(chunks)) byPid.get(l.pid)?.push(l.n!) ?? byPid.set(l.pid, [l.n!]);
    expect([...byPid.values()]).toEqual([0, 1, 2].map(() => Array.from({ length: 10000 }, (_, n) => n)));
  }, 30_000);
});
