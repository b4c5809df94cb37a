import { describe, expect, test } from 'vitest';
import { tabAfterKey } from '../../src/ui/app/tabs.ts';
import { parseTheme } from '../../src/ui/app/theme.ts';

describe('stored theme choice', () => {
  test('valid values are kept; missing or invalid ones mean "follow the system"', () => {
    expect(parseTheme('dark')).toBe('dark');
    expect(parseTheme('light')).toBe('light');
    expect(parseTheme('system')).toBe('system');
    expect(parseTheme(null)).toBe('system');
    expect(parseTheme('DARK')).toBe('system');
    expect(parseTheme('{"theme":"dark"}')).toBe('system');
  });
});

describe('tab list keys', () => {
  test('Left/Right move and wrap around, Home/End jump to the ends, other keys are ignored', () => {
    expect(tabAfterKey(0, 'ArrowRight', 4)).toBe(1);
    expect(tabAfterKey(3, 'ArrowRight', 4)).toBe(0);
    expect(tabAfterKey(0, 'ArrowLeft', 4)).toBe(3);
    expect(tabAfterKey(2, 'ArrowLeft', 4)).toBe(1);
    expect(tabAfterKey(2, 'Home', 4)).toBe(0);
    expect(tabAfterKey(1, 'End', 4)).toBe(3);
    expect(tabAfterKey(1, 'Enter', 4)).toBeNull();
    expect(tabAfterKey(0, 'ArrowRight', 0)).toBeNull();
  });
});
