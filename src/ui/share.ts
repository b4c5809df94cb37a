/**
 * Where share links point and the HF Spaces hand-off: a link is this page (no query: the app's state is not part
 * of a shared report) with the fragment. Inside a Space (an iframe on *.hf.space) the parent page's URL is what
 * people copy, and only the parent can change it: it is told the fragment by postMessage, to huggingface.co only.
 */
export const SPACE_PARENT_ORIGIN = 'https://huggingface.co';

export function shareUrl(fragment: string, loc: Pick<Location, 'origin' | 'pathname'> = location): string {
  return `${loc.origin}${loc.pathname}#${fragment}`;
}

/** Whether this page runs as a Space's app (an iframe on *.hf.space). */
export function inSpace(win: Window = window): boolean {
  return win.parent !== win && /\.hf\.space$/i.test(win.location.hostname);
}

/** On HF Spaces, asks the Space page to carry `hash` in its URL (https://huggingface.co/docs/hub/spaces-handle-url-parameters). */
export function tellSpaceParent(hash: string, win: Window = window): void {
  if (inSpace(win)) win.parent.postMessage({ hash }, SPACE_PARENT_ORIGIN);
}
