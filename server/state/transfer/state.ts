/**
 * The state store's export and import (StateTransfer), written once over the two concerns it moves: the
 * access records' entries first (customers before what belongs to them), then metering's (balances, the
 * ledger). A backend gives how a page of entries is written (one transaction, or commands) and how big.
 */
import { NOT_EMPTY } from '../access/rules.ts';
import { importInPages } from './import.ts';
import { StateEntry, type StateTransfer } from './transfer.ts';

export interface StateTransferParts {
  access: { exportEntries(): AsyncIterable<StateEntry>; isEmpty(): Promise<boolean> };
  metering: { exportEntries(): AsyncIterable<StateEntry> };
  /** Writes a page of entries, whichever concern each belongs to. */
  writePage(page: StateEntry[]): Promise<unknown>;
  /** Entries per page (TRANSFER_PAGE by default). */
  pageSize?: number;
}

export function stateTransfer(parts: StateTransferParts): StateTransfer {
  return {
    async *exportState() {
      yield* parts.access.exportEntries();
      yield* parts.metering.exportEntries();
    },
    isEmpty: () => parts.access.isEmpty(),
    importState(entries) {
      const isEmpty = () => parts.access.isEmpty();
      return importInPages(entries, { schema: StateEntry, isEmpty, notEmpty: NOT_EMPTY, write: parts.writePage, pageSize: parts.pageSize });
    },
  };
}
