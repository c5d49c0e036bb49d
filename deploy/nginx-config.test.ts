/** The nginx configuration: real nginx accepts the rendering, and the shipped example is the rendering. */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderNginxConfig } from './nginx-config.ts';
import { EXAMPLE } from './nginx-example.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-nginx-conf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('nginx configuration', () => {
  it('deploy/nginx.conf is what renderNginxConfig makes of the example parameters', () => {
    expect(readFileSync(new URL('./nginx.conf', import.meta.url), 'utf8')).toBe(renderNginxConfig(EXAMPLE));
  });

  it('passes `nginx -t` with its own prefix (no /var/log, no pid file outside it)', () => {
    const prefix = join(dir, 'nginx');
    mkdirSync(join(prefix, 'temp'), { recursive: true });
    for (const d of [dir, prefix, join(prefix, 'temp')]) chmodSync(d, 0o755);
    const conf = join(prefix, 'nginx.conf');
    writeFileSync(
      conf,
      renderNginxConfig({
        listen: '127.0.0.1:18999',
        nodes: [
          { host: '127.0.0.1', port: 1 },
          { host: '127.0.0.1', port: 2 },
        ],
        prefix,
        workerProcesses: 1,
      }),
    );
    // -t parses and opens the files it names but binds nothing; it reports on stderr.
    const t = spawnSync('nginx', ['-t', '-p', prefix, '-e', join(prefix, 'error.log'), '-c', conf], { encoding: 'utf8' });
    expect(t.stderr).toContain('test is successful');
    expect(t.status).toBe(0);
  });

  it('overwrites the forwarded address, tags each request with an id and bounds retries', () => {
    const conf = renderNginxConfig({ listen: 8080, nodes: [{ host: 'a', port: 1 }], prefix: '/p' });
    expect(conf).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    expect(conf).toContain('proxy_set_header X-Request-Id $request_id;');
    expect(conf).toContain('proxy_next_upstream_tries 2;');
    expect(conf).not.toMatch(/\/var\/log|\/run\//);
    expect(() => renderNginxConfig({ listen: 8080, nodes: [], prefix: '/p' })).toThrow(/at least one node/);
  });
});
