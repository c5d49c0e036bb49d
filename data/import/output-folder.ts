/**
 * The import's output folder, replaced whole: files are written into a temp folder beside it (same
 * filesystem, so renames are atomic) and swapped in only once complete. A failed or interrupted import
 * leaves the previous folder as it was, with no half-written files beside it.
 *
 * POSIX has no atomic swap of two directories, so the old folder is renamed aside and the new one renamed
 * in: between the two renames the folder is briefly absent, never half written. Files of the old folder
 * the import does not write (people.csv, customers.json an operator keeps there for `data build`) are
 * carried into the new one, as they survived the import before.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { ImportError } from './errors.ts';

/** Refuses, before any work, an --out that cannot become a folder or must not be replaced whole. */
export function checkOutputFolder(out: string): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new ImportError(`--out ${out}: exists and is not a folder`);
  // Replacing the folder one works in (or one above it) would move it, and everything else in it, aside.
  const target = realpathSync(out);
  const cwd = realpathSync(process.cwd());
  if (cwd === target || cwd.startsWith(target.endsWith(sep) ? target : target + sep)) {
    throw new ImportError(`--out ${out}: is the current folder or contains it; give the import a folder of its own (e.g. var/sources)`);
  }
}

/** Runs `fill` on a temp folder beside `out`, then puts that folder in place of `out`. */
export async function replaceFolder<T>(out: string, fill: (dir: string) => Promise<T>): Promise<T> {
  checkOutputFolder(out);
  // Through a symlink, the folder it points to is the one replaced; the link stays.
  const target = existsSync(out) ? realpathSync(out) : resolve(out);
  const parent = dirname(target);
  const name = basename(target);
  mkdirSync(parent, { recursive: true });
  removeStaleTemps(parent, name);
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmp = join(parent, `.${name}.import-${tag}`);
  mkdirSync(tmp);
  try {
    const result = await fill(tmp);
    const written = new Set(readdirSync(tmp));
    for (const f of written) fsyncPath(join(tmp, f));
    if (existsSync(target)) {
      for (const f of readdirSync(target)) if (!written.has(f)) carry(join(target, f), join(tmp, f));
    }
    fsyncPath(tmp);
    if (existsSync(target)) {
      const old = join(parent, `.${name}.replaced-${tag}`);
      renameSync(target, old);
      try {
        renameSync(tmp, target);
      } catch (e) {
        renameSync(old, target);
        throw e;
      }
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, target);
    }
    fsyncPath(parent);
    return result;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** A hard link costs no copy and leaves the old folder intact until the swap; a copy where links fail. */
function carry(from: string, to: string): void {
  if (lstatSync(from).isFile()) {
    try {
      linkSync(from, to);
      return;
    } catch {
      // a filesystem without hard links: copied below
    }
  }
  cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

/**
 * Leftovers of imports killed before their cleanup ran (their process no longer exists): temp folders go;
 * a previous folder renamed aside goes back in place if the kill came between the two renames.
 */
function removeStaleTemps(parent: string, name: string): void {
  for (const entry of readdirSync(parent)) {
    const m = /^\.(.*)\.(import|replaced)-(\d+)-[0-9a-f]{8}$/.exec(entry);
    if (!m || m[1] !== name || alive(Number(m[3]))) continue;
    const path = join(parent, entry);
    if (m[2] === 'replaced' && !existsSync(join(parent, name))) renameSync(path, join(parent, name));
    else rmSync(path, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The data (and, for a folder, its entries) on disk before the rename that publishes them. */
function fsyncPath(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // folders cannot be fsynced on every platform (Windows)
  } finally {
    closeSync(fd);
  }
}
