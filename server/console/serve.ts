/**
 * Serves the built console (dist/console) at /console/. Every answer under /console carries a strict
 * Content-Security-Policy (the console only loads its own files and talks only to this origin), and
 * index.html is never cached, so a new build (new app.js) is picked up on the next load.
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import express, { type Express, type RequestHandler } from 'express';

export const CONSOLE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-ancestors 'none'";

export const consoleHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  });
  next();
};

/** Mounts /console when `<dist>/console` exists; returns whether it did. */
export function mountConsole(app: Express, dist: string): boolean {
  const dir = resolve(join(dist, 'console'));
  if (!existsSync(dir)) return false;
  app.use(
    '/console',
    consoleHeaders,
    express.static(dir, {
      index: 'index.html',
      redirect: true,
      setHeaders: (res, path) => res.setHeader('Cache-Control', basename(path) === 'index.html' ? 'no-store' : 'no-cache'),
    }),
  );
  return true;
}
