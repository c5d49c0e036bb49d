/** Serves the built web tag bundle at /tag/v1/svc.js (built by `npm run build:tag` into dist/tag). */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Router } from 'express';
import type { Config } from '../config.ts';
import { sendError } from '../http/errors.ts';

export function mountTagAssets(router: Router, deps: { config: Config }): void {
  const file = join(deps.config.SVC_DIST, 'tag', 'svc.js');
  let cached: { mtime: number; body: Buffer; etag: string } | null = null;
  const load = () => {
    if (!existsSync(file)) return null;
    const mtime = statSync(file).mtimeMs;
    if (!cached || cached.mtime !== mtime) {
      const body = readFileSync(file);
      cached = { mtime, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    }
    return cached;
  };
  router.get('/tag/v1/svc.js', (req, res) => {
    const asset = load();
    if (!asset) return sendError(res, 404, 'the tag bundle is not built: run npm run build:tag');
    res.set({
      'Content-Type': 'application/javascript; charset=utf-8',
      // Short max-age plus ETag: pages get fixes within minutes and revalidate cheaply.
      'Cache-Control': 'public, max-age=300',
      ETag: asset.etag,
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    if (req.get('if-none-match') === asset.etag) return void res.status(304).end();
    res.send(asset.body);
  });
}
