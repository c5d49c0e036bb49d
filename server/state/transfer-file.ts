/** The state export file: JSON lines, one StateEntry per line (transfer.ts), streamed both ways. */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { StateError } from './errors.ts';
import type { StateTransfer } from './transfer.ts';
import { StateEntry } from './transfer.ts';

/** Writes every entry of the store to `file`; returns how many. */
export async function exportStateFile(store: StateTransfer, file: string): Promise<number> {
  const out = createWriteStream(file, { flags: 'wx' });
  await once(out, 'open');
  let n = 0;
  for await (const entry of store.exportState()) {
    if (!out.write(JSON.stringify(entry) + '\n')) await once(out, 'drain');
    n++;
  }
  out.end();
  await once(out, 'finish');
  return n;
}

/** The entries of an export file, validated line by line (a bad line names its number). */
export async function* readStateFile(file: string): AsyncIterable<StateEntry> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new StateError(`${file}:${line}: not a JSON value`);
    }
    const entry = StateEntry.safeParse(parsed);
    if (!entry.success) throw new StateError(`${file}:${line}: ${entry.error.issues[0]?.path.join('.')}: ${entry.error.issues[0]?.message}`);
    yield entry.data;
  }
}

export async function importStateFile(store: StateTransfer, file: string): Promise<number> {
  return store.importState(readStateFile(file));
}
