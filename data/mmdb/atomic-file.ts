/**
 * Atomic file replacement for hot reload: readers must never see a half-written database. Writes
 * `<path>.tmp-<pid>`, fsyncs it, renames it over `path` (atomic on POSIX), then fsyncs the directory so
 * the rename itself survives a crash.
 */
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

const inFlight = new Set<string>();

/** Directory fsync is not supported everywhere (e.g. Windows); these codes mean "not supported". */
const DIR_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EBADF', 'ENOTSUP']);

export async function writeFileAtomic(path: string, data: Uint8Array): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  // The temporary name is per process, so two concurrent writes of one path here would share it.
  if (inFlight.has(tmp)) throw new Error(`writeFileAtomic: ${path} is already being written by this process`);
  inFlight.add(tmp);
  try {
    const fh = await open(tmp, 'w', 0o644);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch((u: NodeJS.ErrnoException) => {
      if (u.code !== 'ENOENT') (e as Error).message += ` (and removing ${tmp} failed: ${u.message})`;
    });
    throw e;
  } finally {
    inFlight.delete(tmp);
  }
  let dir: FileHandle | undefined;
  try {
    dir = await open(dirname(path), 'r');
    await dir.sync();
  } catch (e) {
    if (!DIR_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    await dir?.close();
  }
}
