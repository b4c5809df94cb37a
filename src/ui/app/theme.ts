/** The colour theme choice: follow the system (`prefers-color-scheme`), or always light or dark. Stored in localStorage. */
import * as v from 'valibot';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
export const THEME_KEY = 'rag-lab:theme';
const ThemeSchema = v.picklist(THEMES);

/** A stored value as a theme: 'system' when nothing is stored or the value is not one of THEMES. */
export function parseTheme(raw: string | null): Theme {
  const r = v.safeParse(ThemeSchema, raw);
  return r.success ? r.output : 'system';
}
