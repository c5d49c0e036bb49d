/**
 * The read-only data a node serves: the network index and the catalog, opened together from one folder.
 * Handlers take `dataset.current` once per request, so a reload (swap) never mixes old and new data
 * inside one answer and in-flight requests finish on what they started with.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG_FILE, NETWORKS_FILE } from '../../data/catalog/schema.ts';
import { openCatalog, type Catalog } from './catalog.ts';
import { openNetworkIndex, type NetworkIndex } from './network-index.ts';

export interface DataSnapshot {
  index: NetworkIndex;
  catalog: Catalog;
  loadedAt: Date;
}

export class Dataset {
  current: DataSnapshot;

  constructor(readonly dir: string) {
    this.current = Dataset.open(dir);
  }

  static open(dir: string): DataSnapshot {
    for (const f of [NETWORKS_FILE, CATALOG_FILE]) {
      if (!existsSync(join(dir, f))) {
        throw new Error(`${join(dir, f)} not found: build the data first (npm run svc -- data build --in data/sample --out ${dir})`);
      }
    }
    return { index: openNetworkIndex(join(dir, NETWORKS_FILE)), catalog: openCatalog(join(dir, CATALOG_FILE)), loadedAt: new Date() };
  }

  close(): void {
    this.current.catalog.close();
  }
}
