/**
 * Progress of long data jobs (`data generate`, `data import`, `data build`) on a terminal: phase, rows
 * done, rate, time left (cli-progress draws it, on stderr). Silent unless stdout is a terminal and --json
 * is off, so scripts and pipes see only the command's result.
 */
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
      bar?.update(done, { rate: rate(done) });
    },
    end,
  };
}
