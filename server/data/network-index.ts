/**
 * IP address → network record, over a networks.mmdb written by `data build`: an IPv4 tree when the sources
 * hold only IPv4 networks, an IPv6 tree (IPv4 in ::/96, ::ffff:0:0/96 and 2002::/16 aliased to it) when
 * they hold IPv6 ones too. Either answers both families: an IPv6 address on an IPv4 tree finds nothing.
 *
 * Lookups go through our own reader (./mmdb/reader.ts: hand-written because the `maxmind` package's
 * generic decoder and cache dominate its cost per lookup; see `npm run bench -- lookup`). The `maxmind`
 * package still reads the same files: it is the oracle in mmdb/reader.test.ts, the baseline of the
 * benchmark, and what `data build` uses to verify its samples.
 */
import { readFileSync } from 'node:fs';
import type { NetworkRecord } from '../../data/build/network-record.ts';
import { MmdbReader } from './mmdb/reader.ts';

export interface NetworkIndex {
  /**
   * `ip` must be a normalised address (see visitor-ip.ts: a dotted quad, IPv4-mapped unwrapped, or an
   * IPv6 address without zone id). Results are shared and frozen: read-only.
   */
  lookup(ip: string): NetworkRecord | null;
}

export function openNetworkIndex(file: string): NetworkIndex {
  const reader = new MmdbReader<NetworkRecord>(readFileSync(file));
  return { lookup: (ip) => reader.get(ip) };
}
