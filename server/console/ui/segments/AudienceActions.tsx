/**
 * A segment as a paid-media audience, in its row of the segments table: "LinkedIn audience" downloads the
 * company list (LinkedIn Matched Audiences' company-list template, GET …/segments/:id/audience.csv) for
 * every role; with `segments:write`, "Copy signed link" makes a link that downloads it without signing in
 * for 24 hours (POST …/audience-link: an agency or an upload tool can fetch it) and copies it, showing it
 * with its expiry so it can be copied by hand where the clipboard is refused.
 */
import { useRef, useState } from 'preact/hooks';
import type { Segment } from '../../../../core/customer-records.ts';
import type { AdminClient } from '../../admin-client.ts';
import { Button } from '../kit/index.ts';
import { copyText } from '../SecretDialog.tsx';
import { saveBlob } from '../save-file.ts';

/** The download's name, as the server names it (Content-Disposition). */
const fileName = (customerId: string, segmentId: number) => `linkedin-audience-${customerId}-segment-${segmentId}-${new Date().toISOString().slice(0, 10)}.csv`;

export function AudienceActions({ api, customerId, segment, canWrite }: { api: AdminClient; customerId: string; segment: Segment; canWrite: boolean }) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [link, setLink] = useState<{ url: string; expires_at: string } | null>(null);
  const code = useRef<HTMLElement>(null);

  const act = async (work: () => Promise<{ ok: boolean; text: string }>) => {
    setBusy(true);
    setStatus(null);
    try {
      setStatus(await work());
    } catch (e) {
      setStatus({ ok: false, text: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };
  const download = () =>
    act(async () => {
      saveBlob(await api.segmentAudience(customerId, segment.id, 'linkedin'), fileName(customerId, segment.id));
      return { ok: true, text: 'Downloaded: upload it in Campaign Manager as a company list.' };
    });
  const copyLink = () =>
    act(async () => {
      const made = await api.segmentAudienceLink(customerId, segment.id, 'linkedin');
      setLink(made);
      // The code element shows the link once rendered: the fallback copy selects it.
      await new Promise((r) => setTimeout(r, 0));
      const until = new Date(made.expires_at).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });
      return (await copyText(made.url, code.current))
        ? { ok: true, text: `Signed link copied: it works without signing in until ${until}.` }
        : { ok: false, text: `Could not copy: select the link and copy it by hand (it works until ${until}).` };
    });

  return (
    <div class="audience-actions" data-testid="audience-actions">
      <div class="row-actions">
        <Button variant="quiet" onClick={download} disabled={busy} aria-label={`LinkedIn audience of ${segment.name} (download)`}>
          LinkedIn audience
        </Button>
        {canWrite && (
          <Button variant="quiet" onClick={copyLink} disabled={busy} aria-label={`Copy a signed link to the LinkedIn audience of ${segment.name}`}>
            Copy signed link
          </Button>
        )}
      </div>
      {link && (
        <code ref={code} class="audience-link" data-testid="audience-link">
          {link.url}
        </code>
      )}
      <p role="status" class={status?.ok === false ? 'error' : 'ok'} data-testid="audience-status">
        {status?.text ?? ''}
      </p>
    </div>
  );
}
