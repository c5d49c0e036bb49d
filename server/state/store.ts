/**
 * The state store: the interfaces by concern — access records (`access/service.ts`), metering and usage
 * reports (`metering/service.ts`), export/import (`transfer/transfer.ts`) — composed into one backend
 * (`compose.ts`): embedded SQLite (default, `sqlite/store.ts`) or Redis for many nodes (`redis/store.ts`). Methods
 * are async so both fit; errors are domain errors (`errors.ts`). The records they keep (customers, tokens,
 * tags) are zod schemas in the neutral core, `core/access-records.ts`: the console reads them too.
 */
import type { AccessRecords } from './access/service.ts';
import type { Metering, UsageReports } from './metering/service.ts';
import type { StateTransfer } from './transfer/transfer.ts';

/**
 * A whole backend: access records, metering and usage reports. Callers depend on the smallest of these
 * they need (the pipeline on `Metering`, authentication on `AccessRecords` …); only start-up and the CLI
 * hold the whole store.
 */
export interface StateStore extends AccessRecords, Metering, UsageReports, StateTransfer {
  close(): Promise<void>;
}
