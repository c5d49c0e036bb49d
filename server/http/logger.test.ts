import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

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
