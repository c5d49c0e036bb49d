/** The end of a create form (useCreateForm): the invalid field's message, the server's refusal, the submit button. */
import { Button } from './kit/index.ts';
export function CreateFormFooter(p: {
  idPrefix: string;
  invalid: { message: string } | null;
  error: string | null;
  errorTestId: string;
  busy: boolean;
  label: string;
  /** The refusal's first words and the button's while busy (a connect form: "Not connected", "Connecting…"). */
  refused?: string;
  busyLabel?: string;
}) {
  return (
    <>
      {p.invalid && (
        <p id={`${p.idPrefix}-invalid`} class="error" role="alert">
          {p.invalid.message}
        </p>
      )}
      {p.error && (
        <p class="error" role="alert" data-testid={p.errorTestId}>
          {p.refused ?? 'Not created'}: {p.error}
        </p>
      )}
      <div class="form-actions">
        <Button type="submit" disabled={p.busy}>
          {p.busy ? (p.busyLabel ?? 'Creating…') : p.label}
        </Button>
      </div>
    </>
  );
}
