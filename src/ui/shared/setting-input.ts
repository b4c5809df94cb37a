/** A number input's attributes from a setting's declaration (src/lib/settings/): its bounds, and its one line as the hover title. */
import type { Setting } from '../../lib/settings/schema.ts';

export function settingInput(s: Setting): { min: number | undefined; max: number | undefined; step: number | 'any'; title: string } {
  return { min: s.min, max: s.max, step: s.type === 'int' ? 1 : 'any', title: s.describe };
}
