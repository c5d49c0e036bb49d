/**
 * The generator's IPv6 address plan, beside the IPv4 one (./ip-space.ts) and drawn from a random stream of
 * its own, so adding IPv6 changed no IPv4 row.
 *
 * Allocations follow the regional registries' real shape: each country belongs to one registry block
 * (ARIN 2600::/12, RIPE NCC 2a00::/12, APNIC 2400::/12, LACNIC 2800::/12); ISPs and hosting providers
 * get whole /32s (a few big ISPs a /29) in their region, at spread-out places; a company's own
 * provider-independent /48 (a /44 for the biggest) is carved from a region's PI /32; a small company's
 * static /56 sits inside its country's ISP /32; a hosting provider's /40–/44 inside a hosting /32; a
 * bot's /64 inside a hosting range. Every network starts on a /64 boundary or wider, so positions are the
 * top 64 bits (a bigint), and containers nest or stay apart as the IPv4 plan's do (a laminar family).
 *
 * Never used: 2001::/16 (Teredo, documentation 2001:db8::/32, ORCHID …) and 2002::/16 (6to4, which an
 * IPv6 networks.mmdb aliases to the IPv4 space), nor anything outside the four registry blocks above.
 * Tests use 2001:db8::/32 as addresses that belong to no network.
 */
import { ipv6GroupsText } from '../../core/ipv6-text.ts';
import type { Rng } from './random.ts';

export type Registry = 'arin' | 'ripe' | 'apnic' | 'lacnic';

/** First 12 bits of each registry's block, as the top 16 bits of an address (2600::, 2a00:: …). */
const REGISTRY_BASE: Record<Registry, number> = { arin: 0x2600, ripe: 0x2a00, apnic: 0x2400, lacnic: 0x2800 };

const REGISTRY_OF: Record<string, Registry> = {
  US: 'arin',
  CA: 'arin',
  MX: 'lacnic',
  BR: 'lacnic',
  AU: 'apnic',
  IN: 'apnic',
  JP: 'apnic',
  SG: 'apnic',
};

/** The registry a country's addresses come from (RIPE NCC for the European countries of the vocabulary). */
export function registryOf(countryIso: string): Registry {
  return REGISTRY_OF[countryIso] ?? 'ripe';
}

/** Number of addresses' top-64-bit positions a /prefix spans (prefix ≤ 64). */
export function span64(prefix: number): bigint {
  return 1n << BigInt(64 - prefix);
}

/** RFC 5952 text of the address whose top 64 bits are `top` (lower 64 bits zero). */
export function ipv6Text(top: bigint, low = 0n): string {
  const g: number[] = [];
  for (let k = 3; k >= 0; k--) g.push(Number((top >> BigInt(16 * k)) & 0xffffn));
  for (let k = 3; k >= 0; k--) g.push(Number((low >> BigInt(16 * k)) & 0xffffn));
  return ipv6GroupsText(g);
}

export function cidr6(top: bigint, prefix: number): string {
  return `${ipv6Text(top)}/${prefix}`;
}

/** Hands out /32s (and /29s) per registry, spread over the registry's 2^20 /32s. */
export class Ipv6Space {
  /** Next free /32 index (0 … 2^20) inside each registry's /12. */
  private readonly next: Record<Registry, number> = { arin: 0, ripe: 0, apnic: 0, lacnic: 0 };

  constructor(private readonly rng: Rng) {
    for (const r of Object.keys(this.next) as Registry[]) this.next[r] = rng.int(0, 4095) * 8;
  }

  /** Top 64 bits of a fresh /32 (or, `prefix` 29, an aligned /29) of the registry. */
  take(registry: Registry, prefix: 29 | 32 = 32): bigint {
    const size = prefix === 29 ? 8 : 1;
    let i = Math.ceil((this.next[registry] + this.rng.int(1, 40)) / size) * size;
    if (i + size > 1 << 20) i = 0; // wrapped: a million /32s per registry is far beyond any run
    this.next[registry] = i + size;
    const top32 = (BigInt(REGISTRY_BASE[registry]) << 16n) | BigInt(i);
    return top32 << 32n;
  }
}

/**
 * A network that more specific IPv6 networks go into (an ISP's /32, a hosting /32, a company's /44), in
 * its middle part only, so it keeps answering for itself at its first and last addresses.
 */
export class Container6 {
  private cursor: bigint;
  private readonly limit: bigint;

  constructor(
    readonly start: bigint,
    readonly prefix: number,
  ) {
    this.cursor = start + span64(prefix) / 8n;
    this.limit = start + (span64(prefix) * 7n) / 8n;
  }

  /** True once not even a /48 fits any more. */
  get full(): boolean {
    return this.cursor + span64(48) > this.limit;
  }

  /** Top 64 bits of an aligned nested /prefix, or null when the container's share is used up. */
  carve(prefix: number, rng: Rng): bigint | null {
    if (prefix <= this.prefix || prefix > 64) return null;
    const size = span64(prefix);
    const start = ((this.cursor + size - 1n) / size) * size;
    if (start + size > this.limit) return null;
    this.cursor = start + size + size * BigInt(rng.int(0, 3));
    return start;
  }
}
