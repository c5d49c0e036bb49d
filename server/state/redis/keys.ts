/**
 * The state store's key names on Redis (server/state/README.md "Redis key layout"): every key of one customer
 * carries the hash tag `{cust:<id>}`, so each metering script touches one slot; global indexes (token
 * hash → owner, tag → customer, lists) are single keys.
 */
import { slotTag } from './connection.ts';

export const keys = {
  customer: (c: string) => `svc:{cust:${c}}:customer`,
  token: (c: string, id: string) => `svc:{cust:${c}}:token:${id}`,
  tokens: (c: string) => `svc:{cust:${c}}:tokens`,
  tokenUsed: (c: string) => `svc:{cust:${c}}:token-used`,
  tag: (c: string, id: string) => `svc:{cust:${c}}:tag:${id}`,
  tags: (c: string) => `svc:{cust:${c}}:tags`,
  used: (c: string, pool: string, period: string) => `svc:{cust:${c}}:used:${pool}:${period}`,
  dedupe: (c: string, month: string) => `svc:{cust:${c}}:dedupe:${month}`,
  ledger: (c: string) => `svc:{cust:${c}}:ledger`,
  usage: (c: string) => `svc:{cust:${c}}:usage`,
  rate: (c: string, windowStart: number, key: string) => `svc:{cust:${c}}:rl:${windowStart}:${key}`,
  replayed: (c: string) => `svc:{cust:${c}}:replayed`,
  customers: 'svc:customers',
  tokenHash: (hash: string) => `svc:token-hash:${hash}`,
  tokenOwner: 'svc:token-owner',
  tagOwner: 'svc:tag-owner',
  settings: 'svc:settings',
  authVersion: 'svc:auth:version',
  authChannel: 'svc:auth',
  nodes: 'svc:nodes',
  epoch: 'svc:epoch',
  /** Cluster: the data epoch once more in `slot` (its hash tag hashes there), on whichever primary serves it. */
  slotEpoch: (slot: number) => `svc:epoch:{${slotTag(slot)}}`,
  /** Cluster: the epoch whose slot copies are all written. In `svc:epoch`'s slot: lost together with it. */
  slotEpochsWritten: 'svc:epoch:{svc:epoch}:slots',
} as const;

/** A month's dedup hash outlives the month by a few days (clock skew), then expires. */
export const DEDUPE_TTL_MS = 40 * 86_400_000;

type Hash = Record<string, string>;
/** Records are hashes of JSON fields: a later change to some fields is one HSET, never read-modify-write. */
export const toHash = (record: Record<string, unknown>): Hash => Object.fromEntries(Object.entries(record).map(([k, v]) => [k, JSON.stringify(v)]));
export const fromHash = (h: Hash): Record<string, unknown> => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, JSON.parse(v)]));
