/** A row of chips (packages, segments, lists): a labelled list; `empty` is said in a chip of its own when there are none. */
import type { ComponentChildren } from 'preact';

export interface ChipItem {
  key: string;
  label: ComponentChildren;
  /** `hot`: the account is hot; `quiet`: a neutral fact. */
  tone?: 'hot' | 'quiet';
}

export function Chips({ label, items, empty, testId }: { label: string; items: readonly ChipItem[]; empty?: string; testId?: string }) {
  return (
    <ul class="chips" aria-label={label} data-testid={testId}>
      {items.map((c) => (
        <li key={c.key} class={c.tone ? `chip-${c.tone}` : undefined}>
          {c.label}
        </li>
      ))}
      {items.length === 0 && empty && <li class="chip-empty">{empty}</li>}
    </ul>
  );
}
