/**
 * History navigations of single-page apps (feature `spa`): `pushState` and `replaceState` (wrapped: the
 * original, called on the window's history, still runs first) and `popstate` (back / forward). Listeners
 * decide themselves whether the URL really changed (a `replaceState` often only stores scroll state).
 */
export function onNavigation(win: Window, listener: () => void): void {
  const history = win.history;
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    history[method] = (...args: Parameters<History['pushState']>) => {
      original.apply(history, args);
      listener();
    };
  }
  win.addEventListener('popstate', listener);
}
