/**
 * The Hub-dataset form's pure rules (the state is `state/hub-dataset-form.svelte.ts`): the dataset field, the row
 * limit, the column mapping checked against the inspected schema (the same message the build would give), and the
 * request the build worker gets.
 */
import { DEFAULT_MAX_ROWS, MAX_ROWS, parseDatasetId, type ColumnMapping, type HubDatasetInfo, type HubDatasetRequest } from '../../lib/data/hub-dataset-types.ts';

export { DEFAULT_MAX_ROWS, MAX_ROWS };

/** The form's mapping: '' = none for id and title (the row number, no title). */
export interface MappingFields { id: string; title: string; text: string; metadata: string[] }

export function fieldsOf(m: ColumnMapping): MappingFields {
  return { id: m.id ?? '', title: m.title ?? '', text: m.text, metadata: [...m.metadata] };
}

export function mappingOf(f: MappingFields): ColumnMapping {
  const name = (s: string) => (s.trim() === '' ? null : s.trim());
  return { id: name(f.id), title: name(f.title), text: f.text.trim(), metadata: f.metadata.filter((c) => c.trim() !== '') };
}

/** Why the dataset field cannot be inspected, or null ('' is no message: nothing typed yet). */
export function datasetFieldError(input: string): string | null {
  if (input.trim() === '') return null;
  return parseDatasetId(input) ? null : 'Type a Hub dataset as owner/name (e.g. BeIR/scifact) or paste its page URL (https://huggingface.co/datasets/owner/name).';
}

/** Why the row limit cannot be used, or null. */
export function rowLimitError(n: number): string | null {
  if (!Number.isInteger(n) || n < 1) return 'The row limit is a whole number of at least 1.';
  if (n > MAX_ROWS) return `The row limit is at most ${MAX_ROWS.toLocaleString('en-US')} rows (a larger knowledge base does not fit in a tab).`;
  return null;
}

/** Why the mapping cannot be built from the inspected columns, or null (the wording of hubDatasetDocuments'). */
export function mappingError(info: HubDatasetInfo, f: MappingFields): string | null {
  const m = mappingOf(f);
  if (m.text === '') return `Pick the text column: ${info.columns.map((c) => `"${c.name}"`).join(', ')}.`;
  const have = new Set(info.columns.map((c) => c.name));
  const missing = [m.id, m.title, m.text, ...m.metadata].filter((c): c is string => c !== null && !have.has(c));
  if (missing.length === 0) return null;
  const cols = missing.map((c) => `"${c}"`).join(', ');
  return `${missing.length > 1 ? 'columns' : 'column'} ${cols} ${missing.length > 1 ? 'are' : 'is'} not in ${info.dataset} (${info.config}/${info.split}): its columns are ${info.columns.map((c) => `"${c.name}"`).join(', ')}`;
}

/** The build worker's request, pinned to the commit inspect read. */
export function requestOf(info: HubDatasetInfo, f: MappingFields, maxRows: number): HubDatasetRequest {
  return {
    dataset: info.dataset, config: info.config, split: info.split,
    ...(info.revision ? { revision: info.revision } : {}),
    columns: mappingOf(f), maxRows,
  };
}

/** A knowledge-base title suggested from the dataset (the Build form makes the name from it): "scifact", "ragbench covidqa". */
export function suggestedTitle(info: Pick<HubDatasetInfo, 'dataset' | 'config'>): string {
  const base = info.dataset.split('/')[1] ?? info.dataset;
  return info.config === 'default' || info.config === 'corpus' ? base : `${base} ${info.config}`;
}
