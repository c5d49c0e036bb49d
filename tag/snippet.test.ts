import { describe, expect, it } from 'vitest';
import { normaliseEndpoint, renderSnippet } from './snippet.ts';

describe('renderSnippet', () => {
  it('renders the queue and an async script for an explicit endpoint', () => {
    expect(renderSnippet({ tagId: 'acme-web-1', endpoint: 'https://svc.example.com/' })).toBe(
      '<script>window.svc=window.svc||[];window.svc.push(["init",{"tag":"acme-web-1","endpoint":"https://svc.example.com"}]);</script>\n' +
        '<script async src="https://svc.example.com/tag/v1/svc.js"></script>\n',
    );
  });

  it('uses a root-relative src and no endpoint when none is given', () => {
    const html = renderSnippet({ tagId: 'demo-web-tag' });
    expect(html).toContain('window.svc.push(["init",{"tag":"demo-web-tag"}])');
    expect(html).toContain('<script async src="/tag/v1/svc.js"></script>');
    expect(html).not.toContain('endpoint');
  });

  it('keeps a path prefix of the endpoint and drops its query', () => {
    expect(normaliseEndpoint('https://example.com/svc/?x=1#y')).toBe('https://example.com/svc');
    expect(normaliseEndpoint('http://localhost:8080')).toBe('http://localhost:8080');
  });

  it('rejects what could break out of the HTML or the script', () => {
    for (const tagId of ['', 'a"b', "a'b", 'a</script>', 'x'.repeat(65), 'a b']) {
      expect(() => renderSnippet({ tagId })).toThrow(/tag id/);
    }
    for (const endpoint of ['javascript:alert(1)', 'svc.example.com', '//svc.example.com', 'ftp://x.example']) {
      expect(() => renderSnippet({ tagId: 'ok-tag', endpoint })).toThrow(/endpoint/);
    }
    const html = renderSnippet({ tagId: 'ok', endpoint: 'https://x.example/a"b<c>&d' });
    expect(html).not.toMatch(/<c>|a"b/);
  });

  it('is a snippet a marketer can paste: two lines, nothing else', () => {
    const html = renderSnippet({ tagId: 'demo-web-tag' });
    expect(html.trim().split('\n')).toHaveLength(2);
  });
});
