/** The console's one button: a `variant` picks its look; the type is `button` unless said (no accidental submits). */
import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';

export type ButtonVariant = 'primary' | 'quiet' | 'danger' | 'danger-quiet';

const VARIANT_CLASS: Readonly<Record<ButtonVariant, string>> = {
  primary: 'btn',
  quiet: 'btn btn-quiet',
  danger: 'btn btn-danger',
  'danger-quiet': 'btn btn-quiet btn-danger-quiet',
};

export type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'class'> & {
  variant?: ButtonVariant;
  type?: 'button' | 'submit';
  /** More classes beside the variant's. */
  extraClass?: string;
  children: ComponentChildren;
};

export function Button({ variant = 'primary', type = 'button', extraClass, children, ...rest }: ButtonProps) {
  return (
    <button type={type} class={extraClass ? `${VARIANT_CLASS[variant]} ${extraClass}` : VARIANT_CLASS[variant]} {...rest}>
      {children}
    </button>
  );
}
