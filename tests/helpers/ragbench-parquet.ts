/**
 * Writes RAGBench JSONL rows as parquet at test time (hyparquet-writer), with the nested column types the Hub's files
 * have (lists of strings, lists of [key, sentence] pairs, a list of structs), in small row groups so that a reader
 * needs several range requests. Nothing written here is committed: callers write into a temp dir.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';

type El = SchemaElement;
const str = (name: string, repetition: 'OPTIONAL' | 'REQUIRED' = 'OPTIONAL'): El => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: repetition });
const list = (name: string, element: El[]): El[] => [
  { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  ...element,
];
const dbl = (name: string): El => ({ name, type: 'DOUBLE', repetition_type: 'OPTIONAL' });

/** Column name → its schema elements (a leaf, or a group and its children), in RAGBench's column order. */
const COLUMNS: Array<[string, El[]]> = [
  ['id', [str('id')]],
  ['question', [str('question')]],
  ['documents', list('documents', [str('element')])],
  ['response', [str('response')]],
  ['generation_model_name', [str('generation_model_name')]],
  ['annotating_model_name', [str('annotating_model_name')]],
  ['dataset_name', [str('dataset_name')]],
  ['documents_sentences', list('documents_sentences', list('element', list('element', [str('element')])))],
  ['response_sentences', list('response_sentences', list('element', [str('element')]))],
  ['sentence_support_information', list('sentence_support_information', [
    { name: 'element', repetition_type: 'OPTIONAL', num_children: 4 },
    str('explanation'), { name: 'fully_supported', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
    str('response_sentence_key'), ...list('supporting_sentence_keys', [str('element')]),
  ])],
  ['unsupported_response_sentence_keys', list('unsupported_response_sentence_keys', [str('element')])],
  ['adherence_score', [{ name: 'adherence_score', type: 'BOOLEAN', repetition_type: 'OPTIONAL' }]],
  ['overall_supported_explanation', [str('overall_supported_explanation')]],
  ['relevance_explanation', [str('relevance_explanation')]],
  ['all_relevant_sentence_keys', list('all_relevant_sentence_keys', [str('element')])],
  ['all_utilized_sentence_keys', list('all_utilized_sentence_keys', [str('element')])],
  ...['trulens_groundedness', 'trulens_context_relevance', 'ragas_faithfulness', 'ragas_context_relevance', 'gpt3_adherence',
    'gpt3_context_relevance', 'gpt35_utilization', 'relevance_score', 'utilization_score', 'completeness_score'].map((n): [string, El[]] => [n, [dbl(n)]]),
];

/** RAGBench rows (parsed JSONL objects) as a parquet file. */
export function ragbenchParquet(rows: readonly Record<string, unknown>[], rowGroupSize = 40): ArrayBuffer {
  const schema: El[] = [{ name: 'root', num_children: COLUMNS.length }, ...COLUMNS.flatMap(([, els]) => els)];
  const columnData = COLUMNS.map(([name]) => ({
    name,
    data: rows.map((r) => {
      const v = r[name];
      // Score columns are DOUBLE: JSONL NaN/None become null.
      return typeof v === 'number' && !Number.isFinite(v) ? null : (v ?? null);
    }),
  }));
  return parquetWriteBuffer({ schema, columnData, rowGroupSize });
}

/** The JSONL rows of a shared RAGBench test subset. */
export function readJsonlRows(dataDir: string, subset: string): Record<string, unknown>[] {
  return readFileSync(join(dataDir, `${subset}.jsonl`), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}
