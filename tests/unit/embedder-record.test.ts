/** embedderRecord (src/lib/artifact/embedder-record.ts): the meta.json embedder record of an artifact built here. */
import { describe, expect, test } from 'vitest';
import { embedderRecord } from '../../src/lib/artifact/embedder-record.ts';

describe('embedderRecord', () => {
  test('an e5 model: its query/passage prefixes, mean pooling, normalised, in meta.json field order', () => {
    const r = embedderRecord({ id: 'Xenova/multilingual-e5-small', dtype: 'q8' }, 384);
    expect(r).toEqual({ id: 'Xenova/multilingual-e5-small', dtype: 'q8', dim: 384, pooling: 'mean', normalized: true, prefixes: { query: 'query: ', passage: 'passage: ' } });
    expect(JSON.stringify(r)).toBe('{"id":"Xenova/multilingual-e5-small","dtype":"q8","dim":384,"pooling":"mean","normalized":true,"prefixes":{"query":"query: ","passage":"passage: "}}');
  });
  test('a model without prefix rules: empty prefixes; the spec\'s other fields are not copied', () => {
    const spec = { id: 'Xenova/all-MiniLM-L6-v2', dtype: 'fp32', device: 'wasm' };
    expect(embedderRecord(spec, 384)).toEqual({ id: 'Xenova/all-MiniLM-L6-v2', dtype: 'fp32', dim: 384, pooling: 'mean', normalized: true, prefixes: { query: '', passage: '' } });
  });
  test('nomic: search_query / search_document', () => {
    expect(embedderRecord({ id: 'nomic-ai/nomic-embed-text-v1.5', dtype: 'q8' }, 768).prefixes).toEqual({ query: 'search_query: ', passage: 'search_document: ' });
  });
});
