/**
 * Metadata carries exactly the spec's types (libmaxminddb rejects others) and always has description
 * and languages (the libmaxminddb shipped here rejects files without them). Decoded with our own typed
 * decoder, independent of the `maxmind` package, and cross-checked with `mmdblookup --verbose`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSections, type TypedNode, verboseMetadata } from './test-support.ts';
import { MmdbWriter } from './writer.ts';

/** Strips values, keeping the type tree. */
function types(n: TypedNode): unknown {
  if (n.type === 'map') return Object.fromEntries(Object.entries(n.value).map(([k, v]) => [k, types(v)]));
  if (n.type === 'array') return n.value.map(types);
  return n.type;
}

describe('metadata section', () => {
  it('has every key with exactly the type the spec gives it', () => {
    const w = new MmdbWriter({
      ipVersion: 6,
      databaseType: 'svc-networks',
      description: { en: 'networks', de: 'Netze' },
      languages: ['en', 'de'],
      buildEpoch: 1_700_000_000n,
    });
    w.insert('192.0.2.0/24', { kind: 'company' });
    const { metadata, nodeCount, recordSize } = fileSections(w.toBuffer());
    expect(types(metadata)).toEqual({
      binary_format_major_version: 'uint16',
      binary_format_minor_version: 'uint16',
      build_epoch: 'uint64',
      database_type: 'utf8_string',
      description: { de: 'utf8_string', en: 'utf8_string' },
      ip_version: 'uint16',
      languages: ['utf8_string', 'utf8_string'],
      node_count: 'uint32',
      record_size: 'uint16',
    });
    expect(metadata.type === 'map' && Object.keys(metadata.value)).toEqual([
      'binary_format_major_version',
      'binary_format_minor_version',
      'build_epoch',
      'database_type',
      'description',
      'ip_version',
      'languages',
      'node_count',
      'record_size',
    ]); // sorted, as all our maps
    const v = metadata.type === 'map' ? metadata.value : {};
    expect(v.binary_format_major_version.value).toBe(2);
    expect(v.binary_format_minor_version.value).toBe(0);
    expect(v.build_epoch.value).toBe(1_700_000_000n);
    expect(v.ip_version.value).toBe(6);
    expect(v.node_count.value).toBe(nodeCount);
    expect(recordSize).toBe(24);
  });

  it('writes empty description and languages rather than leaving them out; libmaxminddb opens the file', () => {
    const w = new MmdbWriter({ ipVersion: 4, databaseType: 'bare', description: {}, languages: [] });
    const buf = w.toBuffer(); // no networks at all
    const { metadata } = fileSections(buf);
    expect(types(metadata)).toMatchObject({ description: {}, languages: [] });
    const dir = mkdtempSync(join(tmpdir(), 'mmdb-meta-'));
    try {
      writeFileSync(join(dir, 'bare.mmdb'), buf);
      expect(verboseMetadata(join(dir, 'bare.mmdb'), '1.2.3.4')).toMatchObject({
        nodeCount: '1',
        recordSize: '24 bits',
        ipVersion: 'IPv4',
        binaryFormat: '2.0',
        type: 'bare',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('defaults build_epoch to now', () => {
    const before = BigInt(Math.floor(Date.now() / 1000));
    const { metadata } = fileSections(new MmdbWriter({ ipVersion: 4, databaseType: 'x', description: {}, languages: [] }).toBuffer());
    const epoch = metadata.type === 'map' ? (metadata.value.build_epoch.value as bigint) : 0n;
    expect(epoch >= before && epoch <= before + 5n).toBe(true);
  });

  it('rejects invalid options with a clear message', () => {
    const base = { ipVersion: 4 as const, databaseType: 'x', description: {}, languages: [] };
    expect(() => new MmdbWriter({ ...base, ipVersion: 5 as 4 })).toThrow(/Invalid MmdbWriter options:[\s\S]*ipVersion/);
    expect(() => new MmdbWriter({ ...base, recordSize: 26 as 24 })).toThrow(/recordSize/);
    expect(() => new MmdbWriter({ ...base, ipv4Aliases: true })).toThrow(/ipv4Aliases applies to IPv6 trees only/);
    expect(() => new MmdbWriter({ ...base, buildEpoch: -1 })).toThrow(/buildEpoch/);
    expect(() => new MmdbWriter({ ...base, databaseType: '' })).toThrow(/databaseType/);
  });
});
