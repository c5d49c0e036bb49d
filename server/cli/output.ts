/** CLI output: with --json exactly one JSON value on stdout; otherwise a readable text. */
export class UsageError extends Error {}

export function emit(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? JSON.stringify(value) + '\n' : text() + '\n');
}

export function requireOption(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function intOption(values: Record<string, unknown>, name: string, fallback?: number): number | undefined {
  const v = values[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(v);
}

export function listOption(v: unknown): string[] {
  const items = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return items
    .flatMap((x) => String(x).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}
