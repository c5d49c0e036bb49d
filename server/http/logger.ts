/**
 * The service's logger: pino, JSON lines on stdout (one object per line, for a log shipper), or
 * pino-pretty's human-readable lines when stdout is a terminal. `SVC_LOG` (silent | error | info) is the
 * level. Every message string passes through `mask()` (server/http/log-mask.ts): no secret, admin token or
 * full email address reaches a log line even from a careless caller.
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

export function createLogger(level: LogLevel, opts: LoggerOptions = {}): Logger {
  const human = opts.pretty ?? (opts.destination === undefined && process.stdout.isTTY === true);
  // pino-pretty as an in-process stream, not a transport: transports load by file name in a worker
  // thread, which the esbuild bundle (dist/server) cannot resolve.
  const stream = human
    ? pretty({
        colorize: opts.destination === undefined,
        sync: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
        destination: opts.destination ?? 1,
      })
    : (opts.destination ?? pino.destination({ fd: 1, sync: false }));
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? mask(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    stream as pino.DestinationStream,
  );
}
