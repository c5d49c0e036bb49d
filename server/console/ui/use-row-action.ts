/**
 * A table row's actions (tokens, users): one at a time (busy), the one awaiting confirmation, and the
 * last failure, said in the row. A done action leaves confirmation (`idle`).
 */
import { useState } from 'preact/hooks';

export function useRowAction<C>(idle: C) {
  const [confirming, setConfirming] = useState<C>(idle);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** `what` names the action in the failure ("Rotate failed: …"). */
  const run = async (what: string, action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      setConfirming(idle);
    } catch (e) {
      setError(`${what} failed: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return { confirming, setConfirming, busy, error, run };
}
