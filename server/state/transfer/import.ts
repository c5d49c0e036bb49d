/**
 * The batched JSON-lines import every store's `importState` / `importEntries` runs: into an empty store
 * only, each entry validated by the store's schema, written a page at a time (one SQLite transaction or
 * one run of Redis commands per page), so an import of any size holds one page in memory.
 */
import { StateError } from '../errors.ts';

/** Entries written per page of an import, and rows read per page of an export. */
export const TRANSFER_PAGE = 500;

export interface PagedImport<E> {
  /** The store's entry schema: every entry is parsed before it is written (an edited file is refused). */
  schema: { parse(value: unknown): E };
  /** Whether the store holds none of its entries yet. */
  isEmpty(): Promise<boolean>;
  /** The refusal when it holds some (StateError `conflict`), e.g. "the target already holds …: import into an empty state". */
  notEmpty: string;
  /** Writes one page (in file order). */
  write(page: E[]): Promise<unknown> | undefined;
  /** Entries per page (default TRANSFER_PAGE); Infinity writes the whole file in one step. */
  pageSize?: number;
}

/** Imports `entries` into an empty store, a page at a time; the number of entries written. */
export async function importInPages<E>(entries: AsyncIterable<unknown> | Iterable<unknown>, o: PagedImport<E>): Promise<number> {
  if (!(await o.isEmpty())) throw new StateError(o.notEmpty, 'conflict');
  const size = o.pageSize ?? TRANSFER_PAGE;
  let n = 0;
  let page: E[] = [];
  const flush = async () => {
    const p = page;
    page = [];
    if (p.length > 0) await o.write(p);
  };
  for await (const raw of entries) {
    page.push(o.schema.parse(raw));
    n++;
    if (page.length >= size) await flush();
  }
  await flush();
  return n;
}
