/**
 * The declaration files front-end developers get (dist/tag/svc.d.ts, preact.d.ts, written by the
 * build's `writeDeclarations`), compiled by `tsc` (strict; svc.d.ts checked too: `skipLibCheck` off,
 * only TypeScript's own lib files skipped) together with:
 * - tag/test/integrator.ts: `window.svc` as queue and as live object, events, the dataLayer payloads,
 *   the Preact hook's types — under the nodenext and bundler module resolutions;
 * - the `dataLayer` declarations pages commonly carry for GTM (`interface Window { dataLayer: any[] }`
 *   and the like): ours (a global `var dataLayer: any[]`) must merge with every one of them. Only another
 *   global variable of another type conflicts (TypeScript: subsequent variable declarations must have
 *   the same type); the README says so.
 * Every compilation is its own `tsc` process (global declarations cannot share a program), run in parallel.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tscPath, writeDeclarations } from './build.ts';

const HERE = import.meta.dirname;

/** Common GTM declarations of `dataLayer`, and whether they compile alongside svc.d.ts. */
const DATALAYER_DECLARATIONS: [declaration: string, compiles: boolean][] = [
  ['interface Window { dataLayer: any[] }', true],
  ['interface Window { dataLayer?: any[] }', true],
  ['interface Window { dataLayer: Record<string, any>[] }', true],
  ['interface Window { dataLayer: Array<Record<string, any>> }', true],
  ['interface Window { dataLayer: Record<string, unknown>[] }', true],
  ['interface Window { dataLayer?: Record<string, unknown>[] }', true],
  ['interface Window { dataLayer: Object[] }', true],
  ['interface Window { dataLayer?: Object[] }', true],
  ['interface Window { dataLayer: object[] }', true],
  ['interface Window { dataLayer: unknown[] }', true],
  ['interface Window { dataLayer: IArguments[] }', true],
  ['var dataLayer: any[]', true],
  ['interface Window { dataLayer?: any[] } var dataLayer: any[]', true],
  // Another global variable of another type: a conflict.
  ['var dataLayer: any', false],
  ['var dataLayer: Object[]', false],
];

/** What a GTM page does with `dataLayer`, and reading the tag's pushes. */
const GTM_PAGE = `
window.dataLayer = window.dataLayer || [];
window.dataLayer.push({ event: 'page_view', page_path: location.pathname });
for (const item of window.dataLayer as SvcDataLayerEvent[]) if (item.event === 'svc_company_details_loaded') console.log(item.svc_company_name);
`;

const BUNDLER = { module: 'esnext', moduleResolution: 'bundler' };
const STRICT = {
  strict: true,
  noEmit: true,
  target: 'es2022',
  lib: ['es2022', 'dom', 'dom.iterable'],
  types: [],
  skipLibCheck: false,
  skipDefaultLibCheck: true,
};

describe("the tag's declaration files", async () => {
  const root = await mkdtemp(join(tmpdir(), 'svc-tag-types-'));
  afterAll(() => rm(root, { recursive: true, force: true }));
  const built = join(root, 'built');
  await mkdir(built);
  const written = await writeDeclarations(built);
  let cases = 0;

  /** `tsc` over `files` beside copies of the built declaration files; its diagnostics ('' when it compiles). */
  async function typeCheck(files: Record<string, string>, options: object = {}): Promise<string> {
    const dir = join(root, `case-${++cases}`);
    await mkdir(dir);
    await Promise.all(written.map((name) => copyFile(join(built, name), join(dir, name))));
    await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(dir, name), text)));
    const tsconfig = { compilerOptions: { ...STRICT, module: 'nodenext', ...options }, files: [...written, ...Object.keys(files)] };
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    return promisify(execFile)(process.execPath, [tscPath()!, '-p', dir]).then(
      () => '',
      (e: { stdout?: string; stderr?: string }) => `${e.stdout}${e.stderr}` || String(e),
    );
  }

  const integrator = (await readFile(join(HERE, 'test/integrator.ts'), 'utf8'))
    .replace("'../src/types.ts'", "'./svc.js'")
    .replace("'../preact.ts'", "'./preact.js'");
  const [alone, nodenext, bundler, moduleLocal, ...matrix] = await Promise.all([
    typeCheck({}),
    typeCheck({ 'integrator.ts': integrator }),
    typeCheck({ 'integrator.ts': integrator }, BUNDLER),
    // A variable declared in a module is the module's own (Angular components often carry one).
    typeCheck(
      { 'component.ts': `declare var dataLayer: any;\ndataLayer.push({ event: 'x' });\nwindow.dataLayer.push({ event: 'y' });\nexport {};\n` },
      BUNDLER,
    ),
    ...DATALAYER_DECLARATIONS.map(([declaration]) =>
      typeCheck({ 'page.ts': `import type { SvcDataLayerEvent } from './svc.js';\ndeclare global { ${declaration} }\n${GTM_PAGE}export {};\n` }, BUNDLER),
    ),
    // The same declarations in a script (no import, no export: its declarations are global as written).
    ...DATALAYER_DECLARATIONS.map(([declaration]) =>
      typeCheck(
        {
          'page.ts': `type SvcDataLayerEvent = import('./svc.js').SvcDataLayerEvent;\n${declaration.startsWith('var') ? 'declare ' : ''}${declaration}\n${GTM_PAGE}`,
        },
        { ...BUNDLER, moduleDetection: 'auto' },
      ),
    ),
  ]);

  it('builds svc.d.ts and preact.d.ts; preact.d.ts takes the public types from ./svc.js', async () => {
    expect(written.sort()).toEqual(['preact.d.ts', 'svc.d.ts']);
    expect(await readFile(join(built, 'svc.d.ts'), 'utf8')).toBe(await readFile(join(HERE, 'src/types.ts'), 'utf8'));
    const preact = await readFile(join(built, 'preact.d.ts'), 'utf8');
    expect(preact).toMatch(/export declare function useSvc\(\): SvcState;/);
    expect(preact).toMatch(/export declare function svcPush\(\.\.\.commands: SvcCommand\[\]\): void;/);
    expect(preact).toContain("from './svc.js'");
    expect(preact).not.toMatch(/src\/types|from 'preact/);
  });

  it('svc.d.ts and preact.d.ts compile on their own (strict, declaration files checked)', () => {
    expect(alone).toBe('');
  });

  it("compiles an integrator's code: window.svc as queue and live object, events, dataLayer payloads, the hook (nodenext, bundler)", () => {
    expect(nodenext).toBe('');
    expect(bundler).toBe('');
  });

  it('declares dataLayer so that the common GTM declarations compile alongside it (modules and scripts)', () => {
    const results = (offset: number) => DATALAYER_DECLARATIONS.map(([declaration], i) => [declaration, matrix[offset + i] === ''] as const);
    const expected = DATALAYER_DECLARATIONS.map(([declaration, compiles]) => [declaration, compiles] as const);
    expect(results(0)).toEqual(expected);
    expect(results(DATALAYER_DECLARATIONS.length)).toEqual(expected);
    // The failures are the declarations' conflict, not something else.
    for (const [i, [, compiles]] of [...DATALAYER_DECLARATIONS, ...DATALAYER_DECLARATIONS].entries()) if (!compiles) expect(matrix[i]).toMatch(/TS2403/);
    expect(moduleLocal).toBe('');
  });
});
