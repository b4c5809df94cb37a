/**
 * A list of names for a one-line message, however long the list: the first `max` items, then "… and N more"
 * (an index_config.json of 100,000 ids is one short line, not 789 KB). An item over `width` characters is cut.
 */
export function summariseList(items: readonly string[], max = 10, width = 80): string {
  if (items.length === 0) return 'none';
  const cut = (s: string) => (s.length > width ? `${s.slice(0, width - 1)}…` : s);
  const shown = items.slice(0, max).map(cut).join(', ');
  return items.length <= max ? shown : `${shown}, … and ${(items.length - max).toLocaleString('en-US')} more`;
}
