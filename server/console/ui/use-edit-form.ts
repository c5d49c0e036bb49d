/**
 * The life of a console "edit" form (a web tag's fields, its settings): field values, the invalid field
 * (marked `aria-invalid`, focused), one status line (saved, or why not) and a busy flag while the request
 * runs. Unlike a create form (use-create-form.ts) the values stay as saved.
 */
import { useState } from 'preact/hooks';
import type { Validated } from './use-create-form.ts';

export interface EditFormOptions<F, B> {
  /** Element ids are `<idPrefix>-<field>`. */
  idPrefix: string;
  initial: () => F;
  validate(form: F): Validated<F, B>;
  save(body: B): Promise<unknown>;
  /** The status line after a save. */
  saved: string;
  onSaved(): void;
}

export function useEditForm<F extends object, B>(o: EditFormOptions<F, B>) {
  const [form, setForm] = useState<F>(o.initial);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [invalid, setInvalid] = useState<keyof F | null>(null);
  const [busy, setBusy] = useState(false);
  const id = (name: string) => `${o.idPrefix}-${name}`;
  const set = <K extends keyof F>(key: K, value: F[K]) => setForm((f) => ({ ...f, [key]: value }));
  /** Props of a text input bound to a string field. */
  const text = <K extends keyof F & string>(key: K) => ({
    id: id(key),
    value: form[key] as string,
    onInput: (e: Event) => set(key, (e.currentTarget as HTMLInputElement).value as F[K]),
    'aria-invalid': invalid === key ? true : undefined,
  });
  const submit = async (e: Event) => {
    e.preventDefault();
    setStatus(null);
    const result = o.validate(form);
    if (!result.ok) {
      setInvalid(result.field);
      setStatus({ ok: false, text: result.message });
      document.getElementById(id(result.field))?.focus();
      return;
    }
    setInvalid(null);
    setBusy(true);
    try {
      await o.save(result.body);
      setStatus({ ok: true, text: o.saved });
      o.onSaved();
    } catch (err) {
      setStatus({ ok: false, text: `Not saved: ${(err as Error).message}` });
    } finally {
      setBusy(false);
    }
  };
  return { form, set, id, text, status, busy, setBusy, submit };
}
