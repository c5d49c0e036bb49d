import type { PrivacyReason } from '../../core/vocabulary.ts';

/** What one network of networks.mmdb resolves to. Kept flat and small: it is deduplicated per distinct value. */
export interface NetworkRecord {
  kind: string;
  confidence: string;
  company_id?: string;
  country?: string;
  state?: string;
  city?: string;
  /** Why the network hides who is behind it (networks.csv `privacy`); absent when it does not. */
  privacy?: PrivacyReason;
}
