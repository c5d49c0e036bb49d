/** What one network of networks.mmdb resolves to. Kept flat and small: it is deduplicated per distinct value. */
export interface NetworkRecord {
  kind: string;
  confidence: string;
  company_id?: string;
  country?: string;
  state?: string;
  city?: string;
}
