/** What a page shows of a load (useLoad) until its data is in: the load's error, or a loading line. */
import type { ComponentChildren } from 'preact';
import { Button, ErrorBox } from './kit/index.ts';
import type { Loaded } from './use-load.ts';

/** `what` completes "Could not load …" (the audit log); `loading` is the whole loading line. */
export function LoadState({ load, what, loading }: { load: Loaded<unknown>; what: string; loading: string }) {
  return (
    <>
      {load.error && (
        <ErrorBox>
          Could not load {what}: {load.error}
        </ErrorBox>
      )}
      {!load.data && !load.error && <p class="muted">{loading}</p>}
    </>
  );
}

/**
 * A section listing what a load brought (tokens, users, web tags): its title with a Refresh button, a
 * status line (`notice`, for screen readers, or `status`), the load's state, then `children` (the list,
 * shown while there is data: a failed reload keeps it).
 */
export function LoadedSection({
  id,
  title,
  load,
  what,
  loading,
  notice,
  status,
  children,
}: {
  /** The title's id, which names the section. */
  id: string;
  title: string;
  load: Loaded<unknown>;
  what: string;
  loading: string;
  notice?: string;
  status?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <section aria-labelledby={id}>
      <div class="section-head">
        <h2 id={id}>{title}</h2>
        <Button variant="quiet" onClick={load.reload}>
          Refresh
        </Button>
      </div>
      {notice !== undefined && (
        <p class="sr-only" role="status">
          {notice}
        </p>
      )}
      {status}
      <LoadState load={load} what={what} loading={loading} />
      {children}
    </section>
  );
}
