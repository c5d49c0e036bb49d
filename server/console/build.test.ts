import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsole, renderIndex } from './build.ts';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('console build', () => {
  it('index.html has no inline script or style (strict CSP) and loads its files relatively', () => {
    const html = renderIndex();
    expect(html).toContain('<script src="app.js" defer></script>');
    expect(html).toContain('<link rel="stylesheet" href="console.css">');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(html).not.toMatch(/https?:\/\/|data:/); // no CDN, nothing the CSP blocks
  });

  it('writes index.html, app.js and console.css; the bundle needs no eval and carries no zod', async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'console-build-'));
    dirs.push(outDir);
    const { bytes } = await buildConsole({ outDir });
    expect(Object.keys(bytes).sort()).toEqual(['app.js', 'console.css', 'favicon.svg', 'index.html']);
    const js = await readFile(join(outDir, 'app.js'), 'utf8');
    expect(js).not.toMatch(/\beval\(|new Function\(/);
    expect(js).not.toContain('ZodError');
    expect(js).toContain('/admin/api');
    // Preact and the pages ~170 KB (users, audit, sign-in, the segment builder with groups, tag editing, the
    // account lists, onboarding, the CRM Integrations page — ~20 KB — and the Developers page with its sample
    // answer — examples.json, ~9 KB — included; the sidebar, the component kit and the account profile with its search
    // combobox and tabs, ~10 KB; Home ~4 KB; Alerts with its create/edit form and owners upload ~21 KB, Notifications ~6 KB),
    // uPlot (the Visitors chart) ~52 KB: still no zod (core/roles.ts, whose role table the
    // console uses, also defines a zod schema), no CDN. The console is for signed-in users, not the
    // customers' sites (that budget is the tag's: tag/build.ts); this bound catches a library pulled in by mistake.
    // This wave: the People tab ~6 KB, lookalikes, intent topics and their Settings page ~10 KB, engagement ~8 KB, coverage ~3 KB.
    expect(bytes['app.js']).toBeLessThan(350_000);
    expect(await readFile(join(outDir, 'console.css'), 'utf8')).not.toMatch(/@import|url\(\s*["']?https?:/);
  });
});
