/** IPv4 addresses as unsigned 32-bit numbers, and the network text `networks.csv` takes. */
import { Address4 } from 'ip-address';
import { canonicalV4 } from '../mmdb/network.ts';

const scratch = { value: 0, prefix: 0 };

/** A dotted quad (`203.0.113.9`) or an unsigned integer (`3405803785`, as some ASN range files write them); null otherwise. */
export function parseIPv4(text: string): number | null {
  const s = text.trim();
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    return n <= 0xffff_ffff ? n : null;
  }
  // Fast path for canonical quads (millions of rows); ip-address for the rest (leading zeros …).
  if (canonicalV4(s, scratch) && scratch.prefix === 32) return scratch.value;
  if (!Address4.isValid(s) || s.includes('/')) return null;
  return Number(new Address4(s).bigInt());
}

export function formatIPv4(n: number): string {
  return `${Math.floor(n / 16777216)}.${Math.floor(n / 65536) % 256}.${Math.floor(n / 256) % 256}.${n % 256}`;
}

/** `first`–`last` inclusive as a CIDR when it is one, else as an inclusive range. */
export function networkText(first: number, last: number): string {
  const size = last - first + 1;
  if (Number.isInteger(Math.log2(size)) && first % size === 0) return `${formatIPv4(first)}/${32 - Math.log2(size)}`;
  return `${formatIPv4(first)}-${formatIPv4(last)}`;
}
