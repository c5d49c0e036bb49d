/** A tiny leveled logger to stderr. Secrets never reach it: callers log token ids, never token values. */
export interface Logger {
  info(msg: string): void;
  error(msg: string): void;
}

export function createLogger(level: 'silent' | 'error' | 'info'): Logger {
  const at = (min: number, label: string) => (msg: string) => {
    if ((level === 'info' ? 2 : level === 'error' ? 1 : 0) >= min) process.stderr.write(`${new Date().toISOString()} ${label} ${msg}\n`);
  };
  return { info: at(2, 'info'), error: at(1, 'error') };
}
