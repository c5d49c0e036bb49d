/** The From / To date fields of a report's filter form (Visitors, Account, Audit pages): one draft range. */
import { Field, TextInput } from './kit/index.ts';

export interface DateRange {
  from: string;
  to: string;
}

export function DateRangeFields<R extends DateRange>({ idPrefix, draft, onChange }: { idPrefix: string; draft: R; onChange(next: NoInfer<R>): void }) {
  const field = (key: 'from' | 'to', label: string) => (
    <Field id={`${idPrefix}-${key}`} label={label}>
      <TextInput id={`${idPrefix}-${key}`} type="date" required value={draft[key]} onValue={(value) => onChange({ ...draft, [key]: value })} />
    </Field>
  );
  return (
    <>
      {field('from', 'From')}
      {field('to', 'To')}
    </>
  );
}
