/**
 * The header's tagline: what the app is, and what leaves the tab and where (issue 32: "Nothing leaves this tab." was
 * untrue). Every request the app makes goes to a host the user set or chose, and only when a feature is used.
 */

/** Where requests go, each only when the feature is used (README "What leaves the tab" says the same). */
export const OUTBOUND: readonly { to: string; what: string }[] = [
  { to: 'the model host and Hub set in Settings', what: 'models, datasets and knowledge bases downloaded; what you publish or sync' },
  { to: 'the LLM API you pick in Ask', what: 'your question and the passages retrieved for it' },
  { to: 'the proxy set in Settings', what: 'arXiv searches and web pages to build from' },
];

export const TAGLINE = `Retrieval-augmented generation, measured, in your browser. Your files and indexes stay here; requests leave the tab only for what you use: ${OUTBOUND.map((o) => `${o.to} (${o.what})`).join(', ')}.`;
