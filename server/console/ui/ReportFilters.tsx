/**
 * The filter form of a report (Visitors, Account, Audit pages): the date range and any more fields
 * (`children`), Show, and a CSV download of the report shown; a failed download is said under the form.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type DateRange, DateRangeFields } from './DateRangeFields.tsx';
import { Button, ErrorBox } from './kit/index.ts';

export function ReportFilters<R extends DateRange>({
  label,
  idPrefix,
  range,
  onApply,
  download,
  canDownload = true,
  children,
}: {
  label: string;
  idPrefix: string;
  /** The range shown: the draft starts from it. */
  range: R;
  /** Show: the draft becomes the report's range. */
  onApply(range: NoInfer<R>): void;
  /** Fetches and saves the CSV; its failure is shown here. */
  download(): Promise<void>;
  /** False while there is nothing to download yet. */
  canDownload?: boolean;
  /** More fields of the draft, after the dates. */
  children?: (draft: NoInfer<R>, setDraft: (next: NoInfer<R>) => void) => ComponentChildren;
}) {
  const [draft, setDraft] = useState(range);
  const [csvError, setCsvError] = useState<string | null>(null);
  const save = async () => {
    setCsvError(null);
    try {
      await download();
    } catch (err) {
      setCsvError((err as Error).message);
    }
  };
  return (
    <>
      <form
        class="card filters"
        aria-label={label}
        onSubmit={(e) => {
          e.preventDefault();
          onApply(draft);
        }}
      >
        <DateRangeFields idPrefix={idPrefix} draft={draft} onChange={setDraft} />
        {children?.(draft, setDraft)}
        <div class="form-actions">
          <Button type="submit">Show</Button>
          <Button variant="quiet" onClick={save} disabled={!canDownload}>
            Download CSV
          </Button>
        </div>
      </form>
      {csvError && <ErrorBox>Could not download the CSV: {csvError}</ErrorBox>}
    </>
  );
}
