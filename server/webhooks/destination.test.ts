/** Webhook destinations: public internet only, checked at registration and at connect time (SSRF). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryErrorText, destinationProblem, isPublicAddress, postDelivery, publicOnlyLookup, RefusedDestinationError } from './destination.ts';

describe('isPublicAddress', () => {
  it('refuses loopback, "this host", private, link-local, CGNAT, multicast and reserved IPv4', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.0.9',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      expect([ip, isPublicAddress(ip)]).toEqual([ip, false]);
    }
  });
  it('refuses the IPv6 forms: loopback, unspecified, unique-local, link-local, and IPv4 mapped or NAT64 onto private IPv4', () => {
    for (const ip of ['::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1', '::127.0.0.1']) {
      expect([ip, isPublicAddress(ip)]).toEqual([ip, false]);
    }
  });
  it('refuses the IPv6 transition ranges that carry IPv4 inside: 6to4 2002::/16, Teredo 2001::/32, local-use NAT64 64:ff9b:1::/48', () => {
    // 2002:7f00:1:: is 6to4 for 127.0.0.1, 2002:a00:5:: for 10.0.0.5; a relay forwards there.
    for (const ip of [
      '2002:7f00:1::',
      '2002:a00:5::1',
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001::1',
      '64:ff9b:1::a00:1',
      '64:ff9b:1:ffff::1',
    ]) {
      expect([ip, isPublicAddress(ip)]).toEqual([ip, false]);
    }
    for (const url of ['http://[2002:7f00:1::]/', 'http://[2001::1]/', 'http://[64:ff9b:1::7f00:1]/']) {
      expect([url, destinationProblem(url, false)]).toEqual([url, expect.stringMatching(/public internet address/)]);
    }
    // Neighbours that are ordinary public space stay allowed.
    for (const ip of ['2001:4860:4860::8888', '2003::1', '64:ff9b::808:808']) expect([ip, isPublicAddress(ip)]).toEqual([ip, true]);
  });
  it('says how to allow a private receiver (SVC_WEBHOOK_ALLOW_PRIVATE) when refusing one', () => {
    expect(destinationProblem('http://127.0.0.1:9000/hook', false)).toMatch(/SVC_WEBHOOK_ALLOW_PRIVATE=1/);
    expect(destinationProblem('http://localhost:9000/hook', false)).toMatch(/SVC_WEBHOOK_ALLOW_PRIVATE=1/);
  });
  it('allows public addresses of both families', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect([ip, isPublicAddress(ip)]).toEqual([ip, true]);
  });
});

describe('destinationProblem (at registration)', () => {
  it('refuses an address however it is spelled: decimal, hex, octal, short, bracketed IPv6 and mapped forms', () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://017700000001/',
      'http://127.1/',
      'http://0/',
      'http://0.0.0.0:8080/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/meta-data/',
      'https://10.0.0.5/',
      'http://[fd00::1]/',
    ]) {
      expect([url, destinationProblem(url, false)]).toEqual([url, expect.stringMatching(/public internet address/)]);
    }
  });
  it('refuses internal names: localhost, single labels, .local/.internal/.lan and friends', () => {
    for (const url of [
      'http://localhost:9000/',
      'http://LOCALHOST/',
      'http://api.localhost/',
      'http://redis:6379/',
      'http://metadata/',
      'http://db.internal/',
      'http://printer.local/',
      'http://nas.lan/',
      'http://router.home.arpa/',
    ]) {
      expect([url, destinationProblem(url, false)]).toEqual([url, expect.stringMatching(/public internet address/)]);
    }
  });
  it('allows public names and addresses, and everything when private destinations are allowed', () => {
    expect(destinationProblem('https://hooks.example.com/svc', false)).toBeNull();
    expect(destinationProblem('https://8.8.8.8/x', false)).toBeNull();
    expect(destinationProblem('http://127.0.0.1:9000/', true)).toBeNull();
  });
});

describe('at connect time', () => {
  let receiver: Server;
  let port: number;
  let received = 0;
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      received++;
      req.resume();
      res.end('ok');
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    port = (receiver.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

  it('refuses a name that resolves to a private address (localhost here) before connecting, and an address literal', async () => {
    const before = received;
    const init = { headers: {}, body: '{}', timeoutMs: 2000, allowPrivate: false };
    await expect(postDelivery(`http://localhost:${port}/`, init)).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(postDelivery(`http://127.0.0.1:${port}/`, init)).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(postDelivery(`http://2130706433:${port}/`, init)).rejects.toBeInstanceOf(RefusedDestinationError);
    expect(received).toBe(before); // nothing was sent anywhere
  });

  it('delivers to a private receiver only when private destinations are allowed', async () => {
    const before = received;
    expect(await postDelivery(`http://localhost:${port}/`, { headers: {}, body: '{}', timeoutMs: 2000, allowPrivate: true })).toEqual({ status: 200 });
    expect(received).toBe(before + 1);
  });

  it('the lookup hands the socket the address it checked', async () => {
    const lookup = publicOnlyLookup(true);
    const got = await new Promise<string>((resolve, reject) =>
      lookup('localhost', { family: 4 }, (err, address) => (err ? reject(err) : resolve(String(address)))),
    );
    expect(got).toBe('127.0.0.1');
  });

  it("keeps the delivery log's error text generic (no address or port)", async () => {
    const refused = await postDelivery('http://127.0.0.1:1/', { headers: {}, body: '{}', timeoutMs: 2000, allowPrivate: true }).catch((e: unknown) => e);
    const text = deliveryErrorText(refused, 2000);
    expect(text).toBe('connection refused');
    expect(text).not.toMatch(/127\.0\.0\.1|:1\b/);
    expect(deliveryErrorText(new RefusedDestinationError(), 2000)).toMatch(/non-public address/);
  });
});
