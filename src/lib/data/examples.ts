/**
 * Example queries as a stored descriptor holds them (an artifact's meta.json, written by this or another version):
 * `{ query, note?, mode? }`. A mode this version does not know (or that is not a string) is dropped — the example
 * stays, its chip keeps the current mode — and said once in the knowledge base's notes; an old descriptor without
 * modes is valid as it is.
 */
import * as v from 'valibot';
import { isMode } from '../retrieval/modes.ts';
import type { ExampleQuery } from '../retrieval/document.ts';

/** The stored shape; `mode` is checked by {@link examplesOf}, so one unknown mode does not refuse the whole file. */
export const StoredExampleSchema = v.object({ query: v.string(), note: v.optional(v.string()), mode: v.optional(v.unknown()) });
export type StoredExample = v.InferOutput<typeof StoredExampleSchema>;

/** The examples with known modes kept, and a note when some named a mode that is not one (`where`: the file). */
export function examplesOf(raw: readonly StoredExample[], where: string): { examples: ExampleQuery[]; notes: string[] } {
  const dropped: string[] = [];
  const examples = raw.map(({ query, note, mode }): ExampleQuery => {
    if (mode !== undefined && !isMode(mode)) dropped.push(typeof mode === 'string' ? `“${mode.slice(0, 40)}”` : `a ${mode === null ? 'null' : typeof mode}`);
    return { query, ...(note !== undefined ? { note } : {}), ...(isMode(mode) ? { mode } : {}) };
  });
  const notes = dropped.length === 0 ? [] : [
    `${where}: ${dropped.length === 1 ? 'an example names' : `${dropped.length} examples name`} an unknown mode (${dropped[0]}${dropped.length > 1 ? ', …' : ''}); ${dropped.length === 1 ? 'its chip keeps' : 'their chips keep'} the current mode.`,
  ];
  return { examples, notes };
}
