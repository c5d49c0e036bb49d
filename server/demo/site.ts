/**
 * Serves the built demo site (dist/demo-site) at /, under a strict Content-Security-Policy and
 * X-Frame-Options like the console. The page has inline code (the pasted snippet, the event recorder,
 * its stylesheet): each answer of index.html gets a fresh random nonce for them, written where the build
 * left NONCE_PLACEHOLDER, and is never cached (a cached nonce would be a known one). Everything else the
 * page loads comes from this origin ('self'): app.js, the tag bundle, the API and the demo visitor list.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type Express, type Response } from 'express';
import { NONCE_PLACEHOLDER } from '../../demo-site/page.ts';

export function demoSiteCsp(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers every demo-site answer carries; `nonce` only for the page itself. */
function securityHeaders(res: Response, nonce: string | null): void {
  res.set({
    // Files other than the page run no inline code: a nonce-less policy is the strictest one.
    'Content-Security-Policy': nonce ? demoSiteCsp(nonce) : "default-src 'self'; frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
  });
}

/** Mounts the demo site when `<dist>/demo-site` exists; returns whether it did. */
export function mountDemoSite(app: Express, dist: string): boolean {
  const dir = resolve(join(dist, 'demo-site'));
  if (!existsSync(dir)) return false;
  const page = join(dir, 'index.html');
  // Re-read when a new build replaced the file (mtime), not on every request.
  let cached: { mtimeMs: number; parts: string[] } | null = null;
  const pageParts = (): string[] => {
    const { mtimeMs } = statSync(page);
    if (!cached || cached.mtimeMs !== mtimeMs) cached = { mtimeMs, parts: readFileSync(page, 'utf8').split(NONCE_PLACEHOLDER) };
    return cached.parts;
  };
  app.get(['/', '/index.html'], (_req, res, next) => {
    if (!existsSync(page)) return next();
    const nonce = randomBytes(16).toString('base64');
    securityHeaders(res, nonce);
    res.set('Cache-Control', 'no-store');
    res.type('html').send(pageParts().join(nonce));
  });
  app.use(
    express.static(dir, {
      index: false,
      maxAge: 0,
      setHeaders: (res) => securityHeaders(res as unknown as Response, null),
    }),
  );
  return true;
}
