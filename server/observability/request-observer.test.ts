/** The request line as the observer writes it: its fields in order, masking, and the same line through pino for other loggers. */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, type Logger } from './logger.ts';
import { noteCharge, noteCustomer } from './request-facts.ts';
import { createObserver } from './request-observer.ts';

const SECRET = 'Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789AbCd';

function request(method: string, url: string, status: number, customer?: string): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = url;
  req.headers = { 'x-request-id': 'crm-call-42', authorization: `Token ${SECRET}` };
  const res = new ServerResponse(req);
  res.statusCode = status;
  if (customer) {
    noteCustomer(res, customer);
    noteCharge(res, 'identification', 'identification', 'charged');
  }
  return { req, res };
}

function sink(): { stream: PassThrough; lines: () => Record<string, unknown>[]; text: () => string } {
  const stream = new PassThrough();
  let out = '';
  stream.on('data', (d: Buffer) => (out += d.toString()));
  return {
    stream,
    text: () => out,
    lines: () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const settle = () => new Promise((r) => setImmediate(r));

/** One request of a table route and one unmatched request with secrets in its path, observed with `log`. */
async function observe(log: Logger, out: ReturnType<typeof sink>) {
  const observer = createObserver(log);
  const fast = request('GET', '/v3/company/details?ip=203.0.113.7&email=jane.doe%40example.com', 200, 'acme');
  observer.done(fast.req, fast.res, observer.begin(fast.req, '/v3/company/details'));
  const odd = request('GET', `/lookup/Jane.Doe@northwind.example/${SECRET}?token=${SECRET}`, 404);
  observer.done(odd.req, odd.res, observer.begin(odd.req));
  await settle();
  return out.lines();
}

describe('request line', () => {
  it('carries the allow-listed fields in order, the path without its query, the facts the pipeline noted', async () => {
    const out = sink();
    const [fast, odd] = await observe(createLogger('info', { destination: out.stream }), out);
    expect(Object.keys(fast)).toEqual(['level', 'time', 'pid', 'request_id', 'method', 'route', 'path', 'status', 'duration_ms', 'customer', 'credits', 'msg']);
    expect(fast).toMatchObject({
      level: 'info',
      pid: process.pid,
      request_id: 'crm-call-42',
      method: 'GET',
      route: '/v3/company/details',
      path: '/v3/company/details',
      status: 200,
      duration_ms: expect.any(Number),
      customer: 'acme',
      credits: 1,
      msg: 'request',
    });
    expect(odd).toMatchObject({ route: 'unmatched', path: `/lookup/J***@northwind.example/Ab3d***`, status: 404, customer: null, credits: 0 });
    expect(out.text()).not.toContain(SECRET);
    expect(out.text().toLowerCase()).not.toContain('jane.doe');
  });

  it('masks a path that is its own route pattern too (remembered per route)', async () => {
    // Route patterns come from code (never masked, as before); a path equal to one is still masked.
    const out = sink();
    const observer = createObserver(createLogger('info', { destination: out.stream }));
    const route = `/files/jane.doe@example.com/${SECRET}`;
    for (let i = 0; i < 2; i++) {
      const { req, res } = request('GET', route, 200);
      observer.done(req, res, observer.begin(req, route));
    }
    await settle();
    expect(out.lines().map((l) => [l.route, l.path])).toEqual([
      [route, '/files/j***@example.com/Ab3d***'],
      [route, '/files/j***@example.com/Ab3d***'],
    ]);
  });

  it('escapes what it quotes', async () => {
    const out = sink();
    const observer = createObserver(createLogger('info', { destination: out.stream }));
    const { req, res } = request('GET', '/a"b\\c\u0001d', 404, 'cust"1');
    observer.done(req, res, observer.begin(req));
    await settle();
    expect(out.lines()[0]).toMatchObject({ path: '/a"b\\c\u0001d', customer: 'cust"1' });
  });

  it('is the same line through pino for a logger createLogger did not make', async () => {
    const ours = sink();
    const theirs = sink();
    const plain = pino(
      { base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
      theirs.stream,
    );
    const a = await observe(createLogger('info', { destination: ours.stream }), ours);
    const b = await observe(plain, theirs);
    const comparable = (l: Record<string, unknown>) => ({ ...l, time: 'T', duration_ms: 0 });
    expect(b.map(comparable)).toEqual(a.map(comparable));
    expect(b.map((l) => Object.keys(l))).toEqual(a.map((l) => Object.keys(l)));
  });

  it('writes nothing when info lines are off', async () => {
    const out = sink();
    expect(await observe(createLogger('error', { destination: out.stream }), out)).toEqual([]);
  });
});
