/**
 * The state of the sign-in page's forms (sign-in, choose a password): the invalid field, one error line
 * (`<idPrefix>-error`) and which request is running. Fields are checked here before anything is sent.
 */
import { useState } from 'preact/hooks';

export function useCredentialsForm<F extends string, K extends string>(idPrefix: string, initialError: string | null = null) {
  const [invalid, setInvalid] = useState<F | null>(null);
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState<K | null>(null);

  /**
   * The first problem marks its field, is said on the error line and takes the focus; with none, `send`
   * runs as `kind`. `send` does not return on success (the console opens); its refusal is said and the
   * form is usable again.
   */
  const submit = async (kind: K, problem: { field: F; message: string } | null, send: () => Promise<void>) => {
    if (problem) {
      setInvalid(problem.field);
      setError(problem.message);
      document.getElementById(`${idPrefix}-${problem.field}`)?.focus();
      return;
    }
    setInvalid(null);
    setError(null);
    setBusy(kind);
    await send().catch((err: Error) => {
      setError(err.message);
      setBusy(null);
    });
  };
  /** A field points to the error line while the error is about it (or about the whole form), else to `otherwise`. */
  const describedBy = (field: F, otherwise?: string) => (invalid === field || (error && !invalid) ? `${idPrefix}-error` : otherwise);
  /** A CredentialField's props for `name`. */
  const field = (name: F, otherwise?: string) => ({ id: `${idPrefix}-${name}`, invalid: invalid === name, describedBy: describedBy(name, otherwise) });
  return { setInvalid, error, setError, busy, setBusy, submit, field };
}
