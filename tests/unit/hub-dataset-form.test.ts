/** The Hub-dataset form's rules (src/ui/build/hub-dataset-form.ts): the dataset field, the row limit, the mapping check, the request. */
import { describe, expect, test } from 'vitest';
import type { HubDatasetInfo } from '../../src/lib/data/hub-dataset.ts';
import { datasetFieldError, fieldsOf, mappingError, mappingOf, MAX_ROWS, requestOf, rowLimitError, suggestedTitle } from '../../src/ui/build/hub-dataset-form.ts';

const info: HubDatasetInfo = {
  dataset: 'BeIR/scifact', revision: 'a'.repeat(40), configs: [{ config: 'corpus', splits: ['corpus'] }], config: 'corpus', split: 'corpus',
  columns: [{ name: '_id', type: 'string' }, { name: 'title', type: 'string' }, { name: 'text', type: 'string' }], rows: 5183,
  guess: { id: '_id', title: 'title', text: 'text', metadata: [] }, beir: null, notes: [],
};

describe('the Hub-dataset form', () => {
  test('the dataset field', () => {
    expect(datasetFieldError('')).toBeNull();
    expect(datasetFieldError('BeIR/scifact')).toBeNull();
    expect(datasetFieldError('https://huggingface.co/datasets/BeIR/scifact/tree/main')).toBeNull();
    expect(datasetFieldError('scifact')).toMatch(/owner\/name/);
    expect(datasetFieldError('https://example.com/x')).toMatch(/owner\/name/);
  });

  test('the row limit', () => {
    expect(rowLimitError(10_000)).toBeNull();
    expect(rowLimitError(MAX_ROWS)).toBeNull();
    expect(rowLimitError(MAX_ROWS + 1)).toMatch(/at most 200,000/);
    expect(rowLimitError(0)).toMatch(/at least 1/);
    expect(rowLimitError(2.5)).toMatch(/whole number/);
    expect(rowLimitError(Number.NaN)).toMatch(/whole number/);
  });

  test('the mapping: fields round trip, empty = none, a missing column named with the columns there are', () => {
    const f = fieldsOf(info.guess);
    expect(f).toEqual({ id: '_id', title: 'title', text: 'text', metadata: [] });
    expect(mappingOf({ id: ' ', title: '', text: ' text ', metadata: ['', 'title'] })).toEqual({ id: null, title: null, text: 'text', metadata: ['title'] });
    expect(mappingError(info, f)).toBeNull();
    expect(mappingError(info, { ...f, text: 'abstract' })).toBe('column "abstract" is not in BeIR/scifact (corpus/corpus): its columns are "_id", "title", "text"');
    expect(mappingError(info, { ...f, text: 'abstract', metadata: ['year'] })).toMatch(/^columns "abstract", "year" are not in/);
    expect(mappingError(info, { ...f, text: '' })).toMatch(/^Pick the text column/);
  });

  test('the request is pinned to the commit inspected; a title is suggested', () => {
    expect(requestOf(info, { id: '', title: 'title', text: 'text', metadata: [] }, 500)).toEqual({
      dataset: 'BeIR/scifact', config: 'corpus', split: 'corpus', revision: 'a'.repeat(40), columns: { id: null, title: 'title', text: 'text', metadata: [] }, maxRows: 500,
    });
    expect(suggestedTitle(info)).toBe('scifact');
    expect(suggestedTitle({ dataset: 'rungalileo/ragbench', config: 'covidqa' })).toBe('ragbench covidqa');
  });
});
