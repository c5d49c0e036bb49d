import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { HIDDEN_SELECTOR, normaliseEndpoint, renderSnippet } from './snippet.ts';

const inlineJs = (html: string) => /<script[^>]*>([^<]*)<\/script>/.exec(html)![1];

/** Runs the snippet's inline script against a minimal fake page. */
function runSnippet(html: string, opts: { nonce?: string; svc?: unknown; mark?: () => void } = {}) {
  const classes = new Set<string>();
  const appended: { tag: string; nonce?: string; textContent?: string }[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const marks: string[] = [];
  const win: Record<string, unknown> = opts.svc === undefined ? {} : { svc: opts.svc };
  const document = {
    documentElement: { classList: { add: (c: string) => classes.add(c), remove: (c: string) => classes.delete(c), contains: (c: string) => classes.has(c) } },
    currentScript: { nonce: opts.nonce ?? '' },
    createElement: (tag: string) => ({ tag }) as { tag: string; nonce?: string; textContent?: string },
    head: { appendChild: (el: (typeof appended)[number]) => appended.push(el) },
  };
  const performance = {
    mark: opts.mark ?? ((n: string) => marks.push(n)),
    measure: (n: string, from: string) => ({ name: n, duration: from === 'svc:hide' ? 123.6 : 0 }),
  };
  vm.runInNewContext(inlineJs(html), { window: win, document, performance, setTimeout: (fn: () => void, ms: number) => timers.push({ fn, ms }), Array });
  return { win, classes, appended, timers, marks };
}

describe('renderSnippet', () => {
  it('queues init and loads the per-tag bundle from an explicit endpoint', () => {
    const html = renderSnippet({ tagId: 'acme-web-1', endpoint: 'https://svc.example.com/' });
    expect(html).toContain('q.push(["init",{"tag":"acme-web-1","endpoint":"https://svc.example.com"}])');
    expect(html).toContain('<script async src="https://svc.example.com/tag/v1/acme-web-1.js"></script>');
  });

  it('uses a root-relative src and no endpoint when none is given', () => {
    const html = renderSnippet({ tagId: 'demo-web-tag' });
    expect(html).toContain('q.push(["init",{"tag":"demo-web-tag"}])');
    expect(html).toContain('<script async src="/tag/v1/demo-web-tag.js"></script>');
    expect(html).not.toContain('endpoint');
  });

  it('keeps a path prefix of the endpoint (first-party proxy) and drops its query', () => {
    expect(normaliseEndpoint('https://example.com/svc/?x=1#y')).toBe('https://example.com/svc');
    expect(normaliseEndpoint('http://localhost:8080')).toBe('http://localhost:8080');
    expect(renderSnippet({ tagId: 't-1', endpoint: 'https://www.customer.example/svc/' })).toContain('src="https://www.customer.example/svc/tag/v1/t-1.js"');
  });

  it('rejects what could break out of the HTML or the script', () => {
    for (const tagId of ['', 'a"b', "a'b", 'a</script>', 'x'.repeat(65), 'a b']) {
      expect(() => renderSnippet({ tagId })).toThrow(/tag id/);
    }
    for (const endpoint of ['javascript:alert(1)', 'svc.example.com', '//svc.example.com', 'ftp://x.example']) {
      expect(() => renderSnippet({ tagId: 'ok-tag', endpoint })).toThrow(/endpoint/);
    }
    const html = renderSnippet({ tagId: 'ok', endpoint: 'https://x.example/a"b<c>&d', nonce: '"><script>' });
    expect(html).not.toMatch(/<c>|a"b|"><script>/);
    expect(() => renderSnippet({ tagId: 'ok', timeout: -1 })).toThrow(/timeout/);
  });

  it('is a snippet a marketer can paste: two lines, nothing else', () => {
    expect(renderSnippet({ tagId: 'demo-web-tag' }).trim().split('\n')).toHaveLength(2);
  });

  it('prints a nonce on both scripts for a strict Content-Security-Policy', () => {
    const html = renderSnippet({ tagId: 'demo-web-tag', nonce: '{{nonce}}' });
    expect(html.match(/<script[^>]* nonce="\{\{nonce\}\}"/g)).toHaveLength(2);
  });
});

describe('the snippet in a page', () => {
  it('hides only the marked elements, with its own nonce on the style, and queues init', () => {
    const page = runSnippet(renderSnippet({ tagId: 'demo-web-tag' }), { nonce: 'abc123' });
    expect([...page.classes]).toEqual(['svc-af']);
    expect(page.appended).toHaveLength(1);
    expect(page.appended[0]).toMatchObject({ tag: 'style', nonce: 'abc123' });
    expect(page.appended[0].textContent).toBe(`${HIDDEN_SELECTOR}{visibility:hidden!important}`);
    expect(HIDDEN_SELECTOR).toBe('.svc-af [data-svc-show],.svc-af [data-svc-hide],.svc-af [data-svc-text],.svc-af [data-svc-attr]');
    expect(page.marks).toEqual(['svc:hide']);
    const queue = page.win.svc as unknown[];
    expect([...queue]).toEqual([['init', { tag: 'demo-web-tag' }]]);
  });

  it('reveals once, returning the hidden time; its timer reveals only if the bundle never ran', () => {
    const page = runSnippet(renderSnippet({ tagId: 'demo-web-tag', timeout: 750 }));
    expect(page.timers.map((t) => t.ms)).toEqual([750]);
    const queue = page.win.svc as unknown[] & { r(): number };
    page.timers[0].fn(); // the bundle never ran: window.svc is still the array
    expect(page.classes.has('svc-af')).toBe(false);
    expect(queue.r()).toBe(123);

    const loaded = runSnippet(renderSnippet({ tagId: 'demo-web-tag' }));
    const q = loaded.win.svc as unknown[] & { r(): number };
    loaded.win.svc = { data: null, push() {} }; // the bundle is live: it owns the reveal
    loaded.timers[0].fn();
    expect(loaded.classes.has('svc-af')).toBe(true);
    expect(q.r()).toBe(123);
    expect(loaded.classes.has('svc-af')).toBe(false);
  });

  it('is harmless twice, and without performance.mark', () => {
    const html = renderSnippet({ tagId: 'demo-web-tag' });
    const first = runSnippet(html);
    const queue = first.win.svc as unknown[];
    const second = runSnippet(html, { svc: queue });
    expect(second.appended).toEqual([]); // one style, one timer
    expect(second.timers).toEqual([]);
    expect(queue).toHaveLength(2);
    const nomark = runSnippet(html, {
      mark: () => {
        throw new Error('no');
      },
    });
    expect(nomark.classes.has('svc-af')).toBe(true);
  });
});
