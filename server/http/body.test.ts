/**
 * Request bodies read off a real socket: a body the HTTP parser already holds is taken at once, one still
 * arriving goes through raw-body — both give the same text, BOM dropped, limits kept.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError } from '../../core/error-codes.ts';
import { readFields, readText } from './body.ts';

/** What the handler read, or the error code it threw. */
type Outcome = { text?: string; fields?: Record<string, unknown>; code?: string };

let server: Server;
let port: number;
/** How the next request is read: `text` (readText, 64-byte limit) or `fields`. */
let mode: 'text' | 'fields' = 'text';
/** Wait before reading, so a body sent with its headers is all parsed by then. */
let settle = true;

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res) => {
    if (settle) await new Promise((r) => setImmediate(r));
    let out: Outcome;
    try {
      out = mode === 'text' ? { text: await readText(req, 64) } : { fields: await readFields(req, 64) };
    } catch (e) {
      out = { code: e instanceof ApiError ? e.code : String(e) };
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(out));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Sends raw request bytes in parts (a pause between them), returns the JSON answer. */
function exchange(parts: (string | Buffer)[], pauseMs = 30): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => {
      data += d.toString();
      const at = data.indexOf('\r\n\r\n');
      if (at >= 0 && data.endsWith('}')) {
        socket.destroy();
        resolve(JSON.parse(data.slice(at + 4)) as Outcome);
      }
    });
    socket.on('error', reject);
    (async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, pauseMs));
        socket.write(part);
      }
    })();
  });
}

const head = (length: number, type = 'text/plain') =>
  `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;

it('reads a body that arrived with its headers (held by the parser) and one that arrives later, alike', async () => {
  mode = 'text';
  const body = 'email=ana%40example.com&country=Spain';
  expect(await exchange([head(body.length) + body])).toEqual({ text: body });
  // The headers first, the body in two parts later: raw-body waits for it.
  expect(await exchange([head(body.length), body.slice(0, 10), body.slice(10)])).toEqual({ text: body });
});

it('decodes UTF-8 and drops a leading byte order mark either way', async () => {
  mode = 'text';
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('naïve=ü', 'utf8')]);
  expect(await exchange([Buffer.concat([Buffer.from(head(bytes.length)), bytes])])).toEqual({ text: 'naïve=ü' });
  expect(await exchange([head(bytes.length), bytes])).toEqual({ text: 'naïve=ü' });
});

it('refuses a body over the limit whether it came at once or later (413 too_large)', async () => {
  mode = 'text';
  const big = 'x'.repeat(65);
  expect(await exchange([head(big.length) + big])).toEqual({ code: 'too_large' });
  // A chunked body declares no length: raw-body counts it as it arrives.
  const chunked = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
  expect(await exchange([chunked, `41\r\n${big}\r\n`, '0\r\n\r\n'])).toEqual({ code: 'too_large' });
});

it('reads a chunked body (no Content-Length) through raw-body', async () => {
  mode = 'text';
  const chunked = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
  expect(await exchange([`${chunked}5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n`])).toEqual({ text: 'hello world' });
});

it('parses form fields read either way', async () => {
  mode = 'fields';
  const body = 'email=ana%40example.com&country=Spain';
  const type = 'application/x-www-form-urlencoded';
  expect(await exchange([head(body.length, type) + body])).toEqual({ fields: { email: 'ana@example.com', country: 'Spain' } });
  settle = false;
  try {
    expect(await exchange([head(body.length, type), body])).toEqual({ fields: { email: 'ana@example.com', country: 'Spain' } });
  } finally {
    settle = true;
  }
});
