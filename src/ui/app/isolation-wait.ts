/**
 * On a first visit to a host without COOP/COEP headers, coi-serviceworker registers a service worker and reloads the
 * page once (public/isolation-config.js sets `coi.reloadPending` when it will). Starting the app before that reload
 * opened the embedded corpus and started the workers only to throw them away: the first visit did everything twice
 * (about 3 s more CPU on a 2-core machine, and the artifact downloaded twice). So the app waits for the reload. It
 * starts at once when no reload is pending, when the registration fails or gives no registration (the same
 * registration, asked again: the browser coalesces it with coi's), or after `maxWaitMs` if the reload never comes.
 */

export interface IsolationWindow {
  coi?: { reloadPending?: boolean; script?: string };
  navigator: { serviceWorker?: { register(url: string): Promise<unknown> } };
  setTimeout(fn: () => void, ms: number): unknown;
}

/** Resolves when the app may start; never while a reload that will replace this page is on its way. */
export function isolationSettled(win: IsolationWindow, maxWaitMs = 10_000): Promise<void> {
  const coi = win.coi;
  const sw = win.navigator.serviceWorker;
  if (!coi?.reloadPending || !coi.script || !sw) return Promise.resolve();
  return new Promise<void>((resolve) => {
    win.setTimeout(resolve, maxWaitMs);
    // Registered: coi-serviceworker reloads the page (this promise then never matters). Refused, or answered without
    // a registration (a wrapper that blocks service workers, as Playwright's does): nothing will reload, start here.
    sw.register(coi.script!).then((registration) => { if (!registration) resolve(); }, () => resolve());
  });
}
