/**
 * Where the console keeps the admin token: sessionStorage only (gone when the tab closes; never a cookie,
 * never localStorage). Storage may be unavailable (privacy modes): then the token lives in memory only.
 */
export const SESSION_KEY = 'svc-console:admin-token';

export interface TokenSession {
  get(): string | null;
  set(token: string): void;
  clear(): void;
}

export function tokenSession(storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null): TokenSession {
  let memory: string | null = null;
  const attempt = <T>(f: () => T, fallback: T): T => {
    try {
      return storage ? f() : fallback;
    } catch {
      return fallback;
    }
  };
  return {
    get: () => attempt(() => storage!.getItem(SESSION_KEY), null) ?? memory,
    set(token) {
      memory = token;
      attempt(() => storage!.setItem(SESSION_KEY, token), undefined);
    },
    clear() {
      memory = null;
      attempt(() => storage!.removeItem(SESSION_KEY), undefined);
    },
  };
}
