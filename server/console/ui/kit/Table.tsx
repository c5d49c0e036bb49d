/**
 * A data table in its scrolling box (ScrollTable: on a narrow screen the table scrolls inside it, never the
 * page), with a caption for screen readers and an empty row when there is nothing to list.
 */
import type { ComponentChildren } from 'preact';
import { ScrollTable } from '../ScrollTable.tsx';

/** A column header: `key` names it when the title is markup rather than text. */
interface Column {
  title: ComponentChildren;
  key?: string;
  num?: boolean;
  actions?: boolean;
  hidden?: boolean;
}

export function Table({
  labelledBy,
  label,
  caption,
  captionVisible = false,
  columns,
  empty,
  rowCount,
  testId,
  scrollTestId,
  extraClass,
  children,
}: {
  labelledBy?: string;
  label?: string;
  caption?: ComponentChildren;
  /** The caption shown to everyone, not only to screen readers. */
  captionVisible?: boolean;
  /** Headers; a `num` column is right-aligned, an `actions` one holds row buttons, a `hidden` title is for screen readers only; `false` leaves a column out. */
  columns: readonly (string | false | Column)[];
  /** Said in one row when `rowCount` is 0 (a page that says it elsewhere leaves both out). */
  empty?: string;
  rowCount?: number;
  testId?: string;
  /** The scrolling box's test id. */
  scrollTestId?: string;
  extraClass?: string;
  children: ComponentChildren;
}) {
  const shown = columns.filter((c) => c !== false);
  return (
    <ScrollTable labelledBy={labelledBy} label={label} testId={scrollTestId}>
      <table data-testid={testId} class={extraClass}>
        {caption && <caption class={captionVisible ? undefined : 'sr-only'}>{caption}</caption>}
        <thead>
          <tr>
            {shown.map((c) => {
              const { title, key, num, actions, hidden }: Column = typeof c === 'string' ? { title: c } : c;
              return (
                <th key={key ?? String(title)} scope="col" class={num ? 'num' : actions ? 'actions' : undefined}>
                  {hidden ? <span class="sr-only">{title}</span> : title}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {empty !== undefined && rowCount === 0 && (
            <tr>
              <td colSpan={shown.length} class="muted">
                {empty}
              </td>
            </tr>
          )}
          {children}
        </tbody>
      </table>
    </ScrollTable>
  );
}
