/**
 * Settings: what the workspace chooses for itself — the third-party intent topics it follows
 * (TopicsSettings.tsx). Every role reads them; `segments:write` (a marketer too) changes them.
 */
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { AdminClient } from '../admin-client.ts';
import { TopicsSettings } from './TopicsSettings.tsx';

export function SettingsPage({ api, customer, canWrite }: { api: AdminClient; customer: CustomerRecord; canWrite: boolean }) {
  return (
    <div class="customer" data-testid="settings-page">
      <TopicsSettings api={api} customer={customer} canWrite={canWrite} />
    </div>
  );
}
