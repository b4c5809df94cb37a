/** escapeControl: what the CLI writes to a terminal from data and model output. */
import { describe, expect, it } from 'vitest';
import { escapeControl } from '../../cli/terminal.ts';

describe('escapeControl', () => {
  it('keeps text, newlines, tabs and non-ASCII letters as they are', () => {
    const s = 'Tabelle\tº ñ — 東京 😀\nline two\n';
    expect(escapeControl(s)).toBe(s);
  });

  it('escapes ESC sequences (colour, title, cursor) character by character', () => {
    expect(escapeControl('\x1b[31mred\x1b[0m')).toBe('\\u001b[31mred\\u001b[0m');
    expect(escapeControl('\x1b]0;pwned\x07')).toBe('\\u001b]0;pwned\\u0007');
    expect(escapeControl('a\rb\bc\x00d\x7f')).toBe('a\\u000db\\u0008c\\u0000d\\u007f');
  });

  it('escapes C1 controls and bidi overrides', () => {
    expect(escapeControl('\u009b31m')).toBe('\\u009b31m');
    expect(escapeControl('abc\u202Egnp.exe')).toBe('abc\\u202egnp.exe');
    expect(escapeControl('\u2066x\u2069\u200e\u200f\u061c')).toBe('\\u2066x\\u2069\\u200e\\u200f\\u061c');
  });

  it('leaves a JSON line the same JSON', () => {
    const value = { answer: 'red \x1b[31m\u009b \u202e end', n: [1, 2] };
    const line = escapeControl(JSON.stringify(value));
    expect(line).not.toMatch(/[\u001b\u009b\u202e]/);
    expect(JSON.parse(line)).toEqual(value);
  });
});
