/** A block of code or text with a copy button (the snippet, types, payloads): what the guide pages are made of. */
import { useRef, useState } from 'preact/hooks';
import { Button } from './kit/index.ts';
import { copyText } from './SecretDialog.tsx';

export function CopyBlock({ text, what, testId }: { text: string; what: string; testId?: string }) {
  const code = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  return (
    <div class="dev-block" data-testid={testId}>
      {/* A long block scrolls inside its box: keyboard users focus the named region to scroll it (axe scrollable-region-focusable). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable (WCAG 2.1.1). */}
      <section class="dev-scroll" aria-label={what} tabIndex={0}>
        <pre class="snippet">
          <code ref={code}>{text}</code>
        </pre>
      </section>
      <div class="copy-row">
        <Button variant="quiet" aria-label={`Copy ${what}`} onClick={async () => setCopied((await copyText(text, code.current)) ? 'copied' : 'failed')}>
          Copy
        </Button>
        <span role="status" class={copied === 'failed' ? 'error' : 'ok'}>
          {copied === 'copied' ? `Copied ${what}.` : copied === 'failed' ? 'Could not copy: select the text and copy it by hand.' : ''}
        </span>
      </div>
    </div>
  );
}
