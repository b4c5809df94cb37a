/**
 * Banners keyed by the feature that raised them: a notice shows only where its feature is shown, can be dismissed,
 * and is replaced or cleared when the same cause fails again or is fixed. Pure list operations (NoticesState holds
 * the list).
 */

/**
 * 'models': dense search, reranking and the dense index (Search tab, Settings); 'benchmark': the Benchmark tab's
 * models; 'search': the Search tab's inputs (its link, the filters fitted to the knowledge base that opened).
 */
export type NoticeFeature = 'models' | 'benchmark' | 'search';
export type NoticeKind = 'error' | 'warn' | 'info';

export interface Notice {
  feature: NoticeFeature;
  /** The cause within the feature (e.g. 'embedder', 'dense'): one notice per cause. */
  key: string;
  kind: NoticeKind;
  message: string;
  /**
   * The state the notice is about (its owner's fingerprint of it, e.g. knowledge base + query + filters): shown only
   * while the owner's current scope is the same, so it goes when that state changes. None: until replaced or dismissed.
   */
  scope?: string;
}

/** The list with `n` in place of any notice of the same feature and cause (a new failure replaces the old one). */
export function raiseNotice(list: readonly Notice[], n: Notice): Notice[] {
  return [...list.filter((x) => x.feature !== n.feature || x.key !== n.key), n];
}

/** The list without the notice of this feature and cause (dismissed, or its cause fixed). */
export function clearNotice(list: readonly Notice[], feature: NoticeFeature, key: string): Notice[] {
  return list.filter((x) => x.feature !== feature || x.key !== key);
}

/** Notices of the given features, oldest first; with `scope`, those about another state are left out. */
export function noticesFor(list: readonly Notice[], features: readonly NoticeFeature[], scope?: string): Notice[] {
  return list.filter((x) => features.includes(x.feature) && (scope === undefined || x.scope === undefined || x.scope === scope));
}
