/** Keyboard movement in a tab list (WAI-ARIA tabs pattern): Left/Right wrap around, Home/End go to the ends. */

/** The index of the tab a key moves to from `current` among `count` tabs, or null for keys the tab list ignores. */
export function tabAfterKey(current: number, key: string, count: number): number | null {
  if (count <= 0) return null;
  switch (key) {
    case 'ArrowRight': return (current + 1) % count;
    case 'ArrowLeft': return (current - 1 + count) % count;
    case 'Home': return 0;
    case 'End': return count - 1;
    default: return null;
  }
}
