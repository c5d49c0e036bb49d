/**
 * A form field: its label tied to the control (`for` = the control's id), an optional hint the control is
 * described by (`<id>-hint`), and the control itself. TextInput, Select and Checkbox are the controls.
 */
import type { ComponentChildren, PartialInputHTMLAttributes, Ref, SelectHTMLAttributes, TextareaHTMLAttributes } from 'preact';

export function Field({
  id,
  label,
  hint,
  required = false,
  extraClass,
  children,
}: {
  /** The control's id. */
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  /** Says "(required)" beside the label. */
  required?: boolean;
  extraClass?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={extraClass ? `field ${extraClass}` : 'field'}>
      <label for={id}>
        {label}
        {required && <span class="muted"> (required)</span>}
      </label>
      {children}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** What every control may carry beside its value. */
interface ControlProps {
  disabled?: boolean;
  /** The id of a hint or error describing the control. */
  describedBy?: string;
  invalid?: boolean;
  testId?: string;
}

/**
 * Attributes a control passes through to its element beside the ones it names (`spellcheck`, `min`, a
 * form hook's `aria-*` spread): the kit owns the element's look, the page its wiring.
 */
type PassThrough<T> = Omit<T, 'value' | 'type' | 'class' | 'className' | 'checked' | 'children' | 'role'>;

/** A text box whose value is the caller's state (`onValue` gets each edit; a form hook may pass `onInput` instead). */
export function TextInput({
  value,
  onValue,
  type = 'text',
  describedBy,
  invalid,
  testId,
  inputRef,
  extraClass,
  list,
  role,
  ...rest
}: ControlProps &
  PassThrough<PartialInputHTMLAttributes<HTMLInputElement>> & {
    id: string;
    value: string;
    onValue?(value: string): void;
    type?: 'text' | 'search' | 'email' | 'url' | 'number' | 'date' | 'password';
    inputRef?: Ref<HTMLInputElement>;
    extraClass?: string;
    /** A datalist's id: suggestions for the box. */
    list?: string;
    /** A box with its own pop-up of suggestions. */
    role?: 'combobox';
  }) {
  return (
    <input
      ref={inputRef}
      class={extraClass}
      // Preact types each input type apart; the union of the ones allowed here is still a text-like input.
      type={type as 'text'}
      list={list}
      role={role}
      value={value}
      onInput={onValue && ((e) => onValue((e.currentTarget as HTMLInputElement).value))}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
      data-testid={testId}
      {...rest}
    />
  );
}

/** A box for several lines (`onValue` gets each edit). */
export function TextArea({
  value,
  onValue,
  describedBy,
  invalid,
  testId,
  ...rest
}: ControlProps & PassThrough<TextareaHTMLAttributes<HTMLTextAreaElement>> & { id: string; value: string; onValue(value: string): void }) {
  return (
    <textarea
      value={value}
      onInput={(e) => onValue((e.currentTarget as HTMLTextAreaElement).value)}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
      data-testid={testId}
      {...rest}
    />
  );
}

/** A file picker (`onFile` gets the chosen file, or null when the choice is cleared). */
export function FileInput({
  onFile,
  describedBy,
  testId,
  ...rest
}: ControlProps & PassThrough<PartialInputHTMLAttributes<HTMLInputElement>> & { id: string; onFile(file: File | null): void }) {
  return (
    <input
      type="file"
      onChange={(e) => onFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null)}
      aria-describedby={describedBy}
      data-testid={testId}
      {...rest}
    />
  );
}

/** A drop-down of `options` ([value, label]); `onValue` gets the chosen value (a page that needs the element may pass `onChange`). */
export function Select({
  value,
  options,
  onValue,
  describedBy,
  invalid,
  testId,
  ...rest
}: ControlProps &
  PassThrough<SelectHTMLAttributes<HTMLSelectElement>> & {
    id?: string;
    value: string;
    options: readonly (readonly [value: string, label: string])[];
    onValue?(value: string): void;
  }) {
  return (
    <select
      value={value}
      onChange={onValue && ((e) => onValue((e.currentTarget as HTMLSelectElement).value))}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
      data-testid={testId}
      {...rest}
    >
      {options.map(([v, label]) => (
        <option key={v} value={v}>
          {label}
        </option>
      ))}
    </select>
  );
}

/** A checkbox inside its own label (the label is the whole row, so it is tied without an id). */
export function Checkbox({
  label,
  checked,
  onChecked,
  describedBy,
  testId,
  extraClass,
  ...rest
}: ControlProps &
  PassThrough<PartialInputHTMLAttributes<HTMLInputElement>> & {
    label: ComponentChildren;
    checked: boolean;
    onChecked(checked: boolean): void;
    extraClass?: string;
  }) {
  return (
    <label class={extraClass ? `inline-check ${extraClass}` : 'inline-check'}>
      <input
        type="checkbox"
        checked={checked}
        onChange={(e) => onChecked((e.currentTarget as HTMLInputElement).checked)}
        aria-describedby={describedBy}
        data-testid={testId}
        {...rest}
      />
      {label}
    </label>
  );
}

/** One choice of a radio group (the group is the fieldset around them; `name` ties them), inside its own label. */
export function Radio({
  label,
  value,
  checked,
  onChosen,
  testId,
  extraClass,
  ...rest
}: ControlProps &
  PassThrough<PartialInputHTMLAttributes<HTMLInputElement>> & {
    name: string;
    value?: string;
    label: ComponentChildren;
    checked: boolean;
    onChosen(): void;
    extraClass?: string;
  }) {
  return (
    <label class={extraClass ? `inline-check ${extraClass}` : 'inline-check'}>
      <input type="radio" value={value} checked={checked} onChange={onChosen} data-testid={testId} {...rest} />
      {label}
    </label>
  );
}
