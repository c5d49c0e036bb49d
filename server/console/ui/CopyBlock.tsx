/** A block of code or text with a copy button (the snippet, types, payloads): what the guide pages are made of. */
import { useRef, useState } from 'preact/hooks';
import { copyText } from './SecretDialog.tsx';

export function CopyBlock({ text, what, testId }: { text: string; what: string; testId?: string }) {
  const code = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  return (
    <div class="dev-block" data-testid={testId}>
      <pre class="snippet">
        <code ref={code}>{text}</code>
      </pre>
      <div class="copy-row">
        <button
          type="button"
          class="btn btn-quiet"
          aria-label={`Copy ${what}`}
          onClick={async () => setCopied((await copyText(text, code.current)) ? 'copied' : 'failed')}
        >
          Copy
        </button>
        <span role="status" class={copied === 'failed' ? 'error' : 'ok'}>
          {copied === 'copied' ? `Copied ${what}.` : copied === 'failed' ? 'Could not copy: select the text and copy it by hand.' : ''}
        </span>
      </div>
    </div>
  );
}
