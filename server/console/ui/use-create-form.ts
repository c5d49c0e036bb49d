/**
 * The life of a console "create" form (tokens, web tags): field values, the first invalid field (marked
 * `aria-invalid`, described by the message, focused), the server's error, and a busy flag while the
 * request runs. Validation is the form module's pure function (token-form.ts, tag-form.ts).
 */
import { useState } from 'preact/hooks';

export type Validated<F, B> = { ok: true; body: B } | { ok: false; field: keyof F & string; message: string };

export interface CreateFormOptions<F, B, R> {
  /** Element ids are `<idPrefix>-<field>`; the invalid message is `<idPrefix>-invalid`, hints `<idPrefix>-<field>-hint`. */
  idPrefix: string;
  initial: () => F;
  validate(form: F): Validated<F, B>;
  create(body: B): Promise<R>;
  /** The form after a successful create. */
  reset(form: F): F;
  onCreated(created: R): void;
}

export function useCreateForm<F extends object, B, R>(o: CreateFormOptions<F, B, R>) {
  const [form, setForm] = useState<F>(o.initial);
  const [invalid, setInvalid] = useState<{ field: keyof F & string; message: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const set = <K extends keyof F & string>(key: K, value: F[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    if (invalid?.field === key) setInvalid(null);
  };
  /** Props of a text input bound to a string field. */
  const text = <K extends keyof F & string>(key: K) => ({
    id: `${o.idPrefix}-${key}`,
    value: form[key] as string,
    onInput: (e: Event) => set(key, (e.currentTarget as HTMLInputElement).value as F[K]),
    'aria-invalid': invalid?.field === key ? true : undefined,
    'aria-describedby': invalid?.field === key ? `${o.idPrefix}-invalid` : `${o.idPrefix}-${key}-hint`,
  });
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const result = o.validate(form);
    if (!result.ok) {
      setInvalid({ field: result.field, message: result.message });
      document.getElementById(`${o.idPrefix}-${result.field}`)?.focus();
      return;
    }
    setBusy(true);
    try {
      const created = await o.create(result.body);
      setForm(o.reset(form));
      setInvalid(null);
      o.onCreated(created);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { form, set, text, invalid, error, busy, submit };
}
