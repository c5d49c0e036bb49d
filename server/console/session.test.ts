import { describe, expect, it } from 'vitest';
import { SESSION_KEY, tokenSession } from './session.ts';

function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k), m };
}

describe('tokenSession', () => {
  it('keeps the admin token under one key and clears it on sign-out', () => {
    const storage = memoryStorage();
    const s = tokenSession(storage);
    expect(s.get()).toBeNull();
    s.set('admin-secret');
    expect(storage.m.get(SESSION_KEY)).toBe('admin-secret');
    expect(tokenSession(storage).get()).toBe('admin-secret'); // a reload of the tab keeps it
    s.clear();
    expect(storage.m.size).toBe(0);
    expect(s.get()).toBeNull();
  });

  it('falls back to memory when storage is missing or throws', () => {
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
      removeItem: () => {
        throw new Error('denied');
      },
    };
    for (const storage of [null, broken]) {
      const s = tokenSession(storage);
      s.set('admin-secret');
      expect(s.get()).toBe('admin-secret');
      s.clear();
      expect(s.get()).toBeNull();
    }
  });
});
