import { useEffect, useState } from 'preact/hooks';

/**
 * The page's `location.hash`, kept current, and a function that reads it again (after `history.replaceState`,
 * which fires no `hashchange`). Preact runs effects after the first paint, so a hash changed in
 * between (a deep link opened right after sign-in) fires its `hashchange` before anyone listens: the hash is
 * read again once the listener is in place, or that page would never be shown.
 */
export function useLocationHash(): [string, () => void] {
  const [hash, setHash] = useState(() => location.hash);
  const reread = () => setHash(location.hash);
  useEffect(() => {
    addEventListener('hashchange', reread);
    reread();
    return () => removeEventListener('hashchange', reread);
  }, []);
  return [hash, reread];
}
