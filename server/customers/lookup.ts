/** A customer a workspace route names in its path: 404 (the spec's error) when there is none. */

import type { CustomerRecord } from '../../core/access-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import type { AccessRecords } from '../state/access/service.ts';

export async function customerOr404(store: Pick<AccessRecords, 'getCustomer'>, id: string): Promise<CustomerRecord> {
  const customer = await store.getCustomer(id);
  if (!customer) throw new ApiError('not_found', `unknown customer ${id}`);
  return customer;
}
