/** The From / To date fields of a report's filter form (Visitors, Account, Audit pages): one draft range. */
export interface DateRange {
  from: string;
  to: string;
}

export function DateRangeFields<R extends DateRange>({ idPrefix, draft, onChange }: { idPrefix: string; draft: R; onChange(next: NoInfer<R>): void }) {
  const field = (key: 'from' | 'to', label: string) => (
    <div class="field">
      <label for={`${idPrefix}-${key}`}>{label}</label>
      <input
        id={`${idPrefix}-${key}`}
        type="date"
        required
        value={draft[key]}
        onInput={(e) => onChange({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value })}
      />
    </div>
  );
  return (
    <>
      {field('from', 'From')}
      {field('to', 'To')}
    </>
  );
}
