/**
 * The measuring half of `npm run bench -- log-line` (bench/log-line.ts starts it with stdout redirected to
 * a file, as a user's `npm start > svc.log` would): the request observer's `begin` + `done` for a typical
 * identification request — fast lane, token mode, a Match charged one credit — with the server's own logger
 * (`createLogger`, default destination: stdout) at `info` (a request line per request) and at `error`
 * (metrics only, the baseline), and plain pino logging the same fields for reference.
 *
 * One variant per process (two loggers in one process would share pino's code and its type feedback).
 * Lines go in turns of BATCH (then one `setImmediate`, so the asynchronous destination writes as it would
 * between a server's event-loop turns), after a warm-up. CPU is the whole process's (user + system,
 * libuv's thread pool and the GC threads included). Prints `{ cpuUsPerLine }` as JSON on stderr.
 *
 *   node --import tsx bench/log-line-child.ts on|off|pino LINES > FILE
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { pino } from 'pino';
import { createLogger } from '../server/observability/logger.ts';
import { noteCharge, noteCustomer } from '../server/observability/request-facts.ts';
import { createObserver, type Observer } from '../server/observability/request-observer.ts';

const [variant, lines] = process.argv.slice(2);
const LINES = Number(lines ?? 100_000);
const BATCH = 16;
const ROUTE = '/v3/company/details';

function identificationRequest(): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = `${ROUTE}?ip=203.0.113.57`;
  req.headers = { host: '127.0.0.1:8080', authorization: 'Token 0123456789abcdefghijABCDEFGHIJ0123456789', 'user-agent': 'Mozilla/5.0' };
  const res = new ServerResponse(req);
  res.statusCode = 200;
  noteCustomer(res, 'cust-000042');
  noteCharge(res, 'identification', 'identification', 'charged');
  return { req, res };
}

interface Variant {
  name: string;
  /** One request's worth of work. */
  one(): void;
}

function observed(name: string, observer: Observer): Variant {
  const { req, res } = identificationRequest();
  return {
    name,
    one() {
      observer.done(req, res, observer.begin(req, ROUTE));
    },
  };
}

const tick = () => new Promise<void>((r) => setImmediate(r));
/** Buffered lines go out within the logger's FLUSH_MS (100 ms): waiting idle lets them go inside the measurement. */
const written = () => new Promise<void>((r) => setTimeout(r, 300));

async function run(v: Variant, lines: number): Promise<number> {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < lines; i += BATCH) {
    for (let j = 0; j < BATCH; j++) v.one();
    await tick();
  }
  await written();
  const cpu = process.cpuUsage(cpu0);
  return cpu.user + cpu.system;
}

function variantNamed(name: string): Variant {
  if (name === 'on' || name === 'off') {
    const log = createLogger(name === 'on' ? 'info' : 'error');
    return observed(name, createObserver(log));
  }
  if (name !== 'pino') throw new Error(`unknown variant ${name}: on, off or pino`);
  // Plain pino, its documented asynchronous destination on stdout, the request line's fields.
  const plain = pino(pino.destination({ sync: false }));
  const method = identificationRequest().req.method;
  let n = 0;
  return {
    name,
    one() {
      plain.info(
        {
          request_id: `00000000-0000-4000-8000-${String(n++ % 1e6).padStart(12, '0')}`,
          method,
          route: ROUTE,
          path: ROUTE,
          status: 200,
          duration_ms: 0.412,
          customer: 'cust-000042',
          credits: 1,
        },
        'request',
      );
    },
  };
}

const v = variantNamed(variant);
await run(v, Math.min(50_000, LINES));
process.stderr.write(`${JSON.stringify({ cpuUsPerLine: (await run(v, LINES)) / LINES })}\n`);
