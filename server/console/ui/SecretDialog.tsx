/**
 * Shows a secret once (a token's, a webhook's signing secret, an invitation or password-reset link), in a
 * modal <dialog>, with a copy button. Closing it (button or Escape) unmounts it, so the secret leaves the
 * page; the parent drops it from state in `onClose`. Every use says what its secret is and what to do if
 * it is lost (a token is rotated, a webhook's secret is not): the dialog has no words of its own about it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Button } from './kit/index.ts';

export interface ShownSecret {
  title: string;
  /** What the secret belongs to (a token's name, a webhook's URL, a user's email). */
  name: string;
  value: string;
  /** What the value is, for screen readers and the copy messages: "Token secret", "Signing secret", "Link". */
  kind: string;
  /** The warning under the title, in this secret's words: copy it now, and what to do if it is lost. */
  note: ComponentChildren;
}

export async function copyText(text: string, node: HTMLElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No async clipboard (insecure context, permission): copy the selected text the old way.
    if (!node) return false;
    const range = document.createRange();
    range.selectNodeContents(node);
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

export function SecretDialog({ secret, onClose }: { secret: ShownSecret; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const code = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);

  useEffect(() => {
    const d = dialog.current!;
    if (!d.open) d.showModal();
    const closed = () => onClose();
    d.addEventListener('close', closed);
    return () => {
      d.removeEventListener('close', closed);
      if (d.open) d.close();
    };
  }, []);

  return (
    <dialog ref={dialog} class="secret-dialog" aria-labelledby="secret-title" aria-describedby="secret-note" data-testid="secret-dialog">
      <h2 id="secret-title">{secret.title}</h2>
      <p id="secret-note" class="warning" data-testid="secret-note">
        {secret.note}
      </p>
      <div class="secret-row">
        <span class="sr-only">
          {secret.kind} of {secret.name}:
        </span>
        <code ref={code} class="secret" data-testid="secret-value">
          {secret.value}
        </code>
        <Button onClick={async () => setCopied((await copyText(secret.value, code.current)) ? 'copied' : 'failed')}>Copy</Button>
      </div>
      <p role="status" class={copied === 'failed' ? 'error' : 'ok'}>
        {copied === 'copied'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? `Could not copy: select the ${secret.kind.toLowerCase()} and copy it by hand.`
            : ''}
      </p>
      <div class="dialog-actions">
        <Button variant="quiet" onClick={() => dialog.current?.close()}>
          I have stored it, close
        </Button>
      </div>
    </dialog>
  );
}
