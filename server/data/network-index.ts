/**
 * IPv4 → network record, over a networks.mmdb written by `data build`.
 *
 * Lookups go through our own reader (./mmdb-reader.ts: hand-written because the `maxmind` package's
 * generic decoder and cache dominate its cost per lookup; see `npm run bench -- lookup`). The `maxmind`
 * package still reads the same files: it is the oracle in mmdb-reader.test.ts, the baseline of the
 * benchmark, and what `data build` uses to verify its samples.
 */
import { readFileSync } from 'node:fs';
import type { NetworkRecord } from '../../data/build/network-record.ts';
import { MmdbReader } from './mmdb-reader.ts';

export interface NetworkIndex {
  /** `ip` must be a normalised dotted quad (see visitor-ip.ts). Results are shared and frozen: read-only. */
  lookup(ip: string): NetworkRecord | null;
}

export function openNetworkIndex(file: string): NetworkIndex {
  const reader = new MmdbReader<NetworkRecord>(readFileSync(file));
  if (reader.metadata.ipVersion !== 4) throw new Error(`${file}: expected an IPv4 network index, found ip_version ${reader.metadata.ipVersion}`);
  return { lookup: (ip) => reader.get(ip) };
}
