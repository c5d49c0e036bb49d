import { afterEach, describe, expect, it } from 'vitest';
import { estimateRows, SILENT, terminalProgress } from './progress.ts';

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

describe('estimateRows', () => {
  it('estimates the data rows of a CSV from its first lines; exact for a small file', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'svc-estimate-'));
    try {
      writeFileSync(join(dir, 'small.csv'), 'a,b\n1,2\n3,4\n');
      expect(estimateRows(join(dir, 'small.csv'))).toBe(2);
      writeFileSync(join(dir, 'big.csv'), 'a,b\n' + '12345,67890\n'.repeat(100_000));
      const estimate = estimateRows(join(dir, 'big.csv'))!;
      expect(Math.abs(estimate - 100_000)).toBeLessThan(1000);
      expect(estimateRows(join(dir, 'missing.csv'))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
