import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { freePort } from './processes.ts';

describe('freePort', () => {
  it('hands out distinct ports a child can listen on, outside the range outgoing connections take theirs from', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
    // Listenable right away (what a spawned server does next).
    for (const port of ports.slice(0, 5)) {
      await new Promise<void>((resolve, reject) => {
        const s = createServer();
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => s.close(() => resolve()));
      });
    }
  });

  it('skips a drawn port that something listens on', async () => {
    const held = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => held.listen(port, '127.0.0.1', resolve));
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    // The first draw lands on the held port.
    const random = vi.spyOn(Math, 'random').mockReturnValueOnce((port - 10_000 + 0.5) / (low - 10_000));
    try {
      const next = await freePort();
      expect(random).toHaveBeenCalledTimes(2);
      expect(next).not.toBe(port);
    } finally {
      random.mockRestore();
      held.close();
    }
  });

  it("keeps a child's second port (a Redis Cluster bus at +10000) below the ephemeral range and free too", async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort([10_000])));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port + 10_000).toBeLessThan(low);
    }
    // A draw whose bus port is taken is skipped.
    const held = createServer();
    const port = ports[0]!;
    await new Promise<void>((resolve) => held.listen(port + 10_000, '127.0.0.1', resolve));
    const random = vi.spyOn(Math, 'random').mockReturnValueOnce((port - 10_000 + 0.5) / (low - 10_000 - 10_000));
    try {
      const next = await freePort([10_000]);
      expect(random).toHaveBeenCalledTimes(2);
      expect(next).not.toBe(port);
    } finally {
      random.mockRestore();
      held.close();
    }
  });
});
