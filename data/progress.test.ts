import { afterEach, describe, expect, it } from 'vitest';
import { SILENT, terminalProgress } from './progress.ts';

/** A stand-in terminal: what cli-progress calls on a TTY stream, recording the text. */
function fakeTerminal(): NodeJS.WriteStream & { text: string } {
  const t = {
    isTTY: true,
    columns: 120,
    text: '',
    write(s: string) {
      t.text += s;
      return true;
    },
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
    clearScreenDown: () => true,
    on: () => t,
    removeListener: () => t,
  };
  return t as unknown as NodeJS.WriteStream & { text: string };
}

const stdoutTTY = process.stdout.isTTY;
afterEach(() => {
  process.stdout.isTTY = stdoutTTY;
});

describe('terminal progress', () => {
  it('is silent with --json or when stdout is not a terminal', () => {
    process.stdout.isTTY = true;
    expect(terminalProgress(true, fakeTerminal())).toBe(SILENT);
    process.stdout.isTTY = false as unknown as true;
    expect(terminalProgress(false, fakeTerminal())).toBe(SILENT);
  });

  it('on a terminal shows the phase, rows done, the rate and the time left', () => {
    process.stdout.isTTY = true;
    const term = fakeTerminal();
    const p = terminalProgress(false, term);
    expect(p).not.toBe(SILENT);
    p.phase('companies', 1_000_000);
    p.update(250_000);
    p.end();
    p.phase('people');
    p.update(1234);
    p.end();
    expect(term.text).toMatch(/companies .*25% \| 250,000\/1,000,000 rows \| [\d,]+\/s \| .* left/);
    expect(term.text).toMatch(/people .*\| 1,234 rows/);
  });
});
