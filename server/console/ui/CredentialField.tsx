/** A labelled field of the sign-in page's forms (email, password, workspace, admin token): marked invalid, described by the error line or a hint. */
import type { Ref } from 'preact';
import { TextInput } from './kit/index.ts';

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
      <TextInput
        id={p.id}
        inputRef={p.inputRef}
        type={p.type}
        autoComplete={p.autoComplete}
        spellcheck={p.spellcheck}
        value={p.value}
        invalid={p.invalid}
        describedBy={p.describedBy}
        onValue={p.onValue}
      />
    </>
  );
}
