/**
 * The read-only data a node serves: the network index and the catalog, opened together from one folder.
 * Handlers take `dataset.current` once per request, so a reload never mixes old and new data inside one
 * answer, and in-flight requests finish on the snapshot they started with.
 *
 * Reload (SIGHUP, or a change of build.json — `data build` writes it last, after both data files are in
 * place): open the new files, swap `current`, close the old snapshot after a grace period. A reload that
 * fails (missing or corrupt files) keeps serving the old data and reports the error.
 *
 * Every snapshot opened here has its segment membership index built at once, in the background
 * (../segments/membership.ts `warmSegmentIndex`, then its intent table: `warmIntentTable`), and its lookalike index
 * (../lookalikes/snapshot-index.ts `warmLookalikeIndex`): no marketer's preview waits for them after a start or a
 * reload, and during a reload's build the previous snapshot's indexes keep answering.
 *
 * A watch follows the folder's inode: if the folder is deleted (or replaced) and created again, the old
 * watch sees nothing more. So the folder's identity is also checked every FOLDER_CHECK_MS; when a new
 * folder appears at the path, the watch moves to it, and if a build already finished there it is loaded.
 */
import { existsSync, type FSWatcher, statSync, watch } from 'node:fs';
import { basename, join } from 'node:path';
import { BUILD_MANIFEST, CATALOG_FILE, NETWORKS_FILE } from '../../data/catalog/schema.ts';
import { warmLookalikeIndex } from '../lookalikes/snapshot-index.ts';
import { warmIntentTable } from '../segments/intent-index.ts';
import { warmSegmentIndex } from '../segments/membership.ts';
import { type Catalog, openCatalog } from './catalog.ts';
import { type NetworkIndex, openNetworkIndex } from './network-index.ts';

export interface DataSnapshot {
  index: NetworkIndex;
  catalog: Catalog;
  loadedAt: Date;
}

/** Long enough for any request that took the old snapshot to finish with it. */
const CLOSE_GRACE_MS = 30_000;
const WATCH_DEBOUNCE_MS = 150;
const FOLDER_CHECK_MS = 1_000;

/** The folder's identity (device and inode), or null when it is missing. */
function folderIdentity(dir: string): string | null {
  try {
    const st = statSync(dir);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : null;
  } catch {
    return null;
  }
}

export class Dataset {
  current: DataSnapshot;
  private watcher: FSWatcher | null = null;
  private watching = false;
  /** Identity of the folder the watch is on (null: missing, waiting for it to come back). */
  private watchedFolder: string | null = null;
  private folderCheck: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private readonly retiring = new Set<NodeJS.Timeout>();
  private readonly retired = new Set<DataSnapshot>();

  constructor(
    readonly dir: string,
    private readonly onReload: (result: { ok: true } | { ok: false; error: Error }) => void = () => {},
  ) {
    this.current = Dataset.open(dir);
    warmSegmentIndex(this.current.catalog);
    warmIntentTable(this.current.catalog);
    warmLookalikeIndex(this.current.catalog);
  }

  static open(dir: string): DataSnapshot {
    for (const f of [NETWORKS_FILE, CATALOG_FILE]) {
      if (!existsSync(join(dir, f))) {
        throw new Error(`${join(dir, f)} not found: build the data first (npm run svc -- data build --in data/sample --out ${dir})`);
      }
    }
    const catalog = openCatalog(join(dir, CATALOG_FILE));
    try {
      return { index: openNetworkIndex(join(dir, NETWORKS_FILE)), catalog, loadedAt: new Date() };
    } catch (e) {
      catalog.close();
      throw e;
    }
  }

  /** Opens the folder's files again and swaps them in; the old snapshot is closed after a grace period. */
  reload(): boolean {
    let next: DataSnapshot;
    try {
      next = Dataset.open(this.dir);
    } catch (e) {
      this.onReload({ ok: false, error: e as Error });
      return false;
    }
    const old = this.current;
    this.current = next;
    warmSegmentIndex(next.catalog, old.catalog);
    warmIntentTable(next.catalog);
    warmLookalikeIndex(next.catalog, old.catalog);
    this.retired.add(old);
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      this.retired.delete(old);
      old.catalog.close();
    }, CLOSE_GRACE_MS);
    timer.unref();
    this.retiring.add(timer);
    this.onReload({ ok: true });
    return true;
  }

  /** Reloads when `data build` finishes writing into the folder (build.json replaced), even a new folder. */
  watch(): void {
    if (this.watching) return;
    this.watching = true;
    this.watchFolder();
    this.folderCheck = setInterval(() => this.checkFolder(), FOLDER_CHECK_MS);
    this.folderCheck.unref();
  }

  private watchFolder(): void {
    this.watcher?.close();
    this.watcher = null;
    this.watchedFolder = folderIdentity(this.dir);
    if (this.watchedFolder === null) return;
    try {
      this.watcher = watch(this.dir, { persistent: false }, (_event, file) => {
        // build.json deleted (the folder being emptied) is no new build: nothing to load.
        if (file === BUILD_MANIFEST) {
          if (existsSync(join(this.dir, BUILD_MANIFEST))) this.scheduleReload();
        }
        // Linux reports the watched folder's own deletion as a rename of its name: the watch is dead now
        // (forget its identity, so a new folder is picked up even if it reuses the inode number).
        else if (file === basename(this.dir)) this.forgetFolder();
      });
      // The folder going away is reported as an error on some platforms: the periodic check takes over.
      this.watcher.on('error', () => this.forgetFolder());
    } catch {
      this.watchedFolder = null; // gone between the stat and the watch: the next check retries
    }
  }

  private forgetFolder(): void {
    this.watcher?.close();
    this.watcher = null;
    this.watchedFolder = null;
  }

  /** Moves the watch to a folder that replaced the watched one (or came back), loading a finished build. */
  private checkFolder(): void {
    const now = folderIdentity(this.dir);
    if (now === this.watchedFolder) return;
    this.watchFolder();
    if (now !== null && existsSync(join(this.dir, BUILD_MANIFEST))) this.scheduleReload();
  }

  private scheduleReload(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.reload(), WATCH_DEBOUNCE_MS);
    this.debounce.unref();
  }

  close(): void {
    if (this.folderCheck) clearInterval(this.folderCheck);
    this.watcher?.close();
    if (this.debounce) clearTimeout(this.debounce);
    for (const t of this.retiring) clearTimeout(t);
    for (const s of this.retired) s.catalog.close();
    this.current.catalog.close();
  }
}
