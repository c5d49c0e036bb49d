/**
 * A workspace change of part of a customer record — its segments or its account lists — made in one atomic
 * store step (server/state/access/service.ts `changeSegments`, `changeAccountLists`), then recorded in the audit log.
 */
import type { Segment } from '../../core/customer-records.ts';
import type { AuditEntry } from '../http/route-def.ts';
import type { AccessRecords, ListState, SegmentState } from '../state/access/service.ts';

/** What each part's change gets (the current part) and returns (the next one). */
interface Parts {
  segments: { current: SegmentState; next: SegmentState };
  /** The segments are read only: a list a segment uses may be refused deletion. */
  lists: { current: Readonly<ListState> & { readonly segments: readonly Segment[] }; next: ListState };
}

type Part = keyof Parts;
type Step<P extends Part> = (current: Parts[P]['current']) => Parts[P]['next'];

const storeChange: { [P in Part]: (store: AccessRecords, customerId: string, step: Step<P>) => Promise<unknown> } = {
  segments: (store, customerId, step) => store.changeSegments(customerId, step),
  lists: (store, customerId, step) => store.changeAccountLists(customerId, step),
};

/** What a change decided: the next part, and what the route answers and audits. */
export interface Decided<P extends Part, R> {
  next: Parts[P]['next'];
  result: R;
}

/**
 * Changes one part of the customer's record and audits the change; answers what `decide` decided. `decide`
 * may throw to refuse (nothing changes, nothing is audited), and may run more than once: the store retries
 * it after a concurrent change (Redis compare-and-set), so the result is that of its last run, the one stored.
 */
export async function changeCustomerRecord<P extends Part, R>(
  ctx: { services: { store: AccessRecords }; audit(entry: AuditEntry): Promise<void> },
  part: P,
  customerId: string,
  decide: (current: Parts[P]['current']) => Decided<P, R>,
  audited: (result: R) => Omit<AuditEntry, 'customer'>,
): Promise<R> {
  let last: Decided<P, R> | null = null;
  await storeChange[part](ctx.services.store, customerId, (current) => {
    last = decide(current);
    return last.next;
  });
  const { result } = last as unknown as Decided<P, R>;
  await ctx.audit({ customer: customerId, ...audited(result) });
  return result;
}
