/**
 * Progress of long data jobs (`data generate`, `data import`, `data build`) on a terminal: phase, rows
 * done, rate, time left (cli-progress draws it, on stderr). Silent unless stdout is a terminal and --json
 * is off, so scripts and pipes see only the command's result.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import cliProgress from 'cli-progress';

export interface Progress {
  /** Starts a phase; `total` rows when known (then a bar and the time left are shown). */
  phase(name: string, total?: number): void;
  /** Rows done so far in the current phase. */
  update(done: number): void;
  /** Ends the current phase (its line stays on screen). */
  end(): void;
}

export const SILENT: Progress = { phase() {}, update() {}, end() {} };

export function terminalProgress(json: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (json || !process.stdout.isTTY || !stream.isTTY) return SILENT;
  let bar: cliProgress.SingleBar | null = null;
  let started = 0;
  const rate = (done: number): string => {
    const s = (Date.now() - started) / 1000;
    return s > 0 ? `${Math.round(done / s).toLocaleString('en-US')}/s` : '';
  };
  const end = (): void => {
    bar?.stop();
    bar = null;
  };
  return {
    phase(name, total) {
      end();
      started = Date.now();
      const known = total !== undefined && total > 0;
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: known
            ? `{phase} [{bar}] {percentage}% | {value}/{total} rows | {rate} | {eta_formatted} left`
            : '{phase} | {value} rows | {rate} | {duration_formatted}',
          hideCursor: true,
          etaBuffer: 50,
          fps: 5,
          formatValue: (v, _o, type) => (type === 'value' || type === 'total' ? v.toLocaleString('en-US') : String(v)),
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(known ? total : 0, 0, { phase: name.padEnd(12), rate: '' });
    },
    update(done) {
      // Totals may be estimates (estimateRows): never show more than 100 %.
      if (bar && bar.getTotal() > 0 && done > bar.getTotal()) bar.setTotal(done);
      bar?.update(done, { rate: rate(done) });
    },
    end,
  };
}

/**
 * Rows of a CSV file (without its header), estimated from the size of the first lines: enough for a
 * progress bar and a time left without reading the file twice. Undefined when absent or empty.
 */
export function estimateRows(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const size = statSync(file).size;
  if (size === 0) return undefined;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, 1 << 16));
    const n = readSync(fd, head, 0, head.length, 0);
    let lines = 0;
    for (let i = 0; i < n; i++) if (head[i] === 10) lines++;
    if (n === size) return Math.max(0, lines - 1);
    return lines > 1 ? Math.round((size / n) * lines) - 1 : undefined;
  } finally {
    closeSync(fd);
  }
}
