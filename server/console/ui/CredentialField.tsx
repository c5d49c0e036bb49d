/** A labelled field of the sign-in page's forms (email, password, workspace, admin token): marked invalid, described by the error line or a hint. */
import type { Ref } from 'preact';

export function CredentialField(p: {
  id: string;
  label: string;
  type: 'email' | 'password' | 'text';
  autoComplete: string;
  value: string;
  onValue(value: string): void;
  invalid: boolean;
  describedBy: string | undefined;
  inputRef?: Ref<HTMLInputElement>;
  spellcheck?: boolean;
}) {
  return (
    <>
      <label for={p.id}>{p.label}</label>
      <input
        id={p.id}
        ref={p.inputRef}
        // Preact types the props of each input type apart; these input types take the same ones here.
        type={p.type as 'email'}
        autoComplete={p.autoComplete}
        spellcheck={p.spellcheck}
        value={p.value}
        aria-invalid={p.invalid ? true : undefined}
        aria-describedby={p.describedBy}
        onInput={(e) => p.onValue((e.currentTarget as HTMLInputElement).value)}
      />
    </>
  );
}
