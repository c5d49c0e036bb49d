/**
 * writeFile replaces the database atomically (temp file `<path>.tmp-<pid>`, fsync, rename): a reader
 * that opened the old file keeps reading the old bytes, a new open sees the whole new file, and no
 * temporary file is left behind, also on failure.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reader } from 'maxmind';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-file.ts';
import { MmdbWriter } from './writer.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmdb-atomic-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const db = (value: string): MmdbWriter => {
  const w = new MmdbWriter({ ipVersion: 4, databaseType: 't', description: {}, languages: [], buildEpoch: 1 });
  w.insert('1.2.3.0/24', { value });
  return w;
};

describe('atomic writeFile', () => {
  it('writes exactly toBuffer() and leaves no temporary file', async () => {
    const file = join(dir, 'networks.mmdb');
    const w = db('v1');
    await w.writeFile(file);
    expect(readFileSync(file).equals(w.toBuffer())).toBe(true);
    expect(readdirSync(dir)).toEqual(['networks.mmdb']);
  });

  it('replaces an existing file by rename: open readers keep the old file, new opens see the new one', async () => {
    const file = join(dir, 'networks.mmdb');
    await db('old').writeFile(file);
    const oldInode = statSync(file).ino;
    const fd = openSync(file, 'r');
    try {
      await db('new, and a bit longer').writeFile(file);
      expect(statSync(file).ino).not.toBe(oldInode); // a new file was renamed over the path
      const size = 4096;
      const old = Buffer.alloc(size);
      const n = readSync(fd, old, 0, size, 0);
      expect(new Reader(old.subarray(0, n)).get('1.2.3.4')).toEqual({ value: 'old' });
    } finally {
      closeSync(fd);
    }
    expect(new Reader(readFileSync(file)).get('1.2.3.4')).toEqual({ value: 'new, and a bit longer' });
    expect(readdirSync(dir)).toEqual(['networks.mmdb']);
  });

  it('fails cleanly (no temp file, old file intact) when the target cannot be written', async () => {
    const target = join(dir, 'is-a-directory');
    await writeFileAtomic(join(dir, 'keep.mmdb'), Buffer.from('keep'));
    // Renaming a file over a non-empty directory fails after the temp file was written.
    mkdirSync(target);
    writeFileSync(join(target, 'x'), 'x');
    await expect(writeFileAtomic(target, Buffer.from('data'))).rejects.toThrow();
    expect(readdirSync(dir).sort()).toEqual(['is-a-directory', 'keep.mmdb']);
    await expect(writeFileAtomic(join(dir, 'missing-dir', 'f.mmdb'), Buffer.from('x'))).rejects.toThrow(/ENOENT/);
    expect(readFileSync(join(dir, 'keep.mmdb'), 'utf8')).toBe('keep');
  });

  it('refuses two concurrent writes of the same path from one process (they would share the temp name)', async () => {
    const file = join(dir, 'networks.mmdb');
    const a = writeFileAtomic(file, Buffer.alloc(1 << 20, 1));
    await expect(writeFileAtomic(file, Buffer.alloc(10, 2))).rejects.toThrow(/already being written/);
    await a;
    expect(readFileSync(file).length).toBe(1 << 20);
  });
});
