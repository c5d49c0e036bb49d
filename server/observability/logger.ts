/**
 * The service's logger: pino, JSON lines on stdout (one object per line, for a log shipper), or
 * pino-pretty's human-readable lines when stdout is a terminal. `SVC_LOG` (silent | error | info) is the
 * level. Every message string passes through `mask()` (./log-mask.ts): no secret, admin token or
 * full email address reaches a log line even from a careless caller.
 *
 * A request line costs ≈ 2 µs of CPU (`npm run bench -- log-line`; 6 µs before): the request observer
 * writes its line through `infoLineWriter` (fields it serialised and masked itself, no generic object
 * walk), the time is formatted once per millisecond, and stdout is pino's SonicBoom destination with a
 * buffer, so a line is a buffer append and one write carries a dozen lines (`bufferedStdout`).
 */
import { type Logger as PinoLogger, pino } from 'pino';
import pretty from 'pino-pretty';
import { mask } from './log-mask.ts';

export type Logger = PinoLogger;
export type LogLevel = 'silent' | 'error' | 'info';

export interface LoggerOptions {
  /** Where lines go; defaults to stdout (pretty when it is a terminal). Tests pass a stream to read them. */
  destination?: NodeJS.WritableStream;
  pretty?: boolean;
}

/**
 * The most one write to stdout carries: PIPE_BUF, so a pipe takes each write whole and the lines of several
 * processes sharing stdout (`serve --workers N`) never interleave; a write carries whole lines only.
 */
export const WRITE_BYTES = 4096;
/** A write starts once this much is buffered (≈ 12 request lines; SonicBoom wants it below WRITE_BYTES). */
export const BUFFER_BYTES = WRITE_BYTES - 512;
/** The longest a line waits in the buffer on a quiet server. */
export const FLUSH_MS = 100;

/** Writes one info line whose fields the caller serialised: `,"key":value…` (masked, JSON-escaped), message last. */
export type InfoLineWriter = (fields: string) => void;

const infoWriters = new WeakMap<Logger, InfoLineWriter>();

/**
 * The line writer of a logger made by `createLogger` whose level logs info lines (undefined otherwise:
 * callers fall back to `log.info`). Its lines are the ones pino writes for `log.info({ …fields })`:
 * level, time, pid, then the fields in the caller's order.
 */
export function infoLineWriter(log: Logger): InfoLineWriter | undefined {
  return log.isLevelEnabled('info') ? infoWriters.get(log) : undefined;
}

export function createLogger(level: LogLevel, opts: LoggerOptions = {}): Logger {
  const human = opts.pretty ?? (opts.destination === undefined && process.stdout.isTTY === true);
  // pino-pretty as an in-process stream, not a transport: transports load by file name in a worker
  // thread, which the esbuild bundle (dist/server) cannot resolve.
  const stdout = human || opts.destination !== undefined ? undefined : bufferedStdout();
  const stream = human
    ? pretty({
        colorize: opts.destination === undefined,
        sync: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
        destination: opts.destination ?? 1,
      })
    : (opts.destination ?? stdout!.stream);
  const time = isoTimeOncePerMs();
  const log = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: time,
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          // Strings are masked; objects are written as given (the request observer masks its fields).
          for (let i = 0; i < args.length; i++) {
            if (typeof args[i] === 'string') {
              method.apply(this, args.map((a) => (typeof a === 'string' ? mask(a) : a)) as Parameters<typeof method>);
              return;
            }
          }
          method.apply(this, args);
        },
        streamWrite: stdout?.line,
      },
    },
    stream as pino.DestinationStream,
  );
  // pino's own prefix for this logger's info lines: level (as the formatter names it), time, base fields.
  const head = `{"level":"info"`;
  const base = `,"pid":${process.pid}`;
  const write = stdout ? stdout.write : (line: string) => void (stream as NodeJS.WritableStream).write(line);
  infoWriters.set(log, (fields) => write(`${head}${time()}${base}${fields}}\n`));
  return log;
}

/**
 * pino's `isoTime` (`,"time":"2026-11-25T14:42:37.902Z"`), formatted once per millisecond: a busy server
 * writes several lines in the same millisecond, and `toISOString` is a good part of a line's cost.
 */
export function isoTimeOncePerMs(now: () => number = Date.now): () => string {
  let ms = Number.NaN;
  let text = '';
  return () => {
    const t = now();
    if (t !== ms) {
      ms = t;
      text = `,"time":"${new Date(t).toISOString()}"`;
    }
    return text;
  };
}

/**
 * Stdout through pino's SonicBoom, writing once BUFFER_BYTES have gathered, so a line is a buffer append
 * rather than a write. Lines go in as Buffers: SonicBoom's buffer mode keeps a running length, where its
 * string mode measures the whole buffered string again for every line. A line that finds no flush pending
 * sets one FLUSH_MS later, and the process's `exit` writes what is left (process.exit, an uncaught
 * exception, a signal the server handles; not SIGKILL).
 *
 * The writes are synchronous (`sync: true`), ≈ 4 KiB each: a few µs of the event loop every dozen lines,
 * less CPU than a write through libuv's thread pool (tens of µs each here), and what is written at exit
 * can never overlap a write still under way in the pool (on a pipe such an overlap interleaved the bytes
 * of two writes, corrupting lines).
 */
function bufferedStdout(): { stream: pino.DestinationStream; line: (s: string) => string; write: (s: string) => void } {
  const dest = pino.destination({ dest: 1, sync: true, minLength: BUFFER_BYTES, maxWrite: WRITE_BYTES, contentMode: 'buffer' });
  writtenAtExit(dest);
  let timerSet = false;
  const onTimer = () => {
    timerSet = false;
    try {
      dest.flush();
    } catch {
      // destroyed: nothing more is written
    }
  };
  const line = (s: string) => {
    if (!timerSet) {
      timerSet = true;
      setTimeout(onTimer, FLUSH_MS).unref();
    }
    // pino's hook is typed for strings; SonicBoom in buffer mode takes Buffers.
    return Buffer.from(s) as unknown as string;
  };
  return { stream: dest, line, write: (s) => void dest.write(line(s)) };
}

type Destination = ReturnType<typeof pino.destination>;

/** Buffered destinations still to write at exit (pino does it only for asynchronous ones); one listener for all. */
const buffered = new Set<WeakRef<Destination>>();

function writtenAtExit(dest: Destination): void {
  if (buffered.size === 0) {
    process.once('exit', () => {
      for (const ref of buffered) {
        try {
          ref.deref()?.flushSync();
        } catch {
          // destroyed, or stdout is gone: nothing more can be written
        }
      }
    });
  }
  buffered.add(new WeakRef(dest));
}
