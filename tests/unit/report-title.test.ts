/**
 * Report names (src/lib/reports/title.ts): the title generated from each kind of report, the user's title winning,
 * old list entries named without a body, the same name in Compare, exports and `rag-lab compare`, and identical
 * re-runs recognised (same config hash and rows) and what "replace" keeps of the older report.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { compareText } from '../../src/lib/reports/compare-text.ts';
import { compareReports } from '../../src/lib/reports/compare.ts';
import { reportFile } from '../../src/lib/reports/export.ts';
import { parseReportText, type Report } from '../../src/lib/reports/format.ts';
import { reportMeta, ReportMetaSchema } from '../../src/lib/reports/meta.ts';
import { asReplacement, duplicateOf, generatedTitle, metaTitle, reportDetails, reportTitle, runFingerprint } from '../../src/lib/reports/title.ts';
import { multiModeReport } from '../helpers/retrieval-reports.ts';
import { testReport, validateRow } from '../helpers/reports.ts';

const rows = (group: string, n = 12) => Array.from({ length: n }, (_, i) => validateRow(i, (i % 10) / 10, i % 3 !== 0, group));
const env = { app: '0.1.0', runtime: 'node' as const, agent: 'test', models: [], llm: null, judge: null };

const validate = testReport([...rows('covidqa'), ...rows('hotpotqa')], {
  id: 'title-validate', evaluator: 'nli', seed: 7, n: 12, config: { mode: 'validate', evaluator: 'nli', nliModels: { nli: 'x@q8', reranker: null } },
});
const judged = testReport(rows('covidqa'), {
  id: 'title-judge', evaluator: 'llm', seed: 3, config: { mode: 'validate', evaluator: 'llm', judge: { model: 'llama-3.1-8b-instant' } },
  environment: { ...env, judge: { provider: 'groq', model: 'llama-3.1-8b-instant' } },
});
const pipeline = testReport(rows('emanual').map((r) => ({ ...r, gold: {} })), {
  id: 'title-pipeline', kind: 'ragbench-pipeline', evaluator: 'lexical', seed: 1, n: 20,
  config: { mode: 'pipeline', rag: { retrieval: { mode: 'hybrid' }, llm: { provider: 'groq', model: 'llama-3.3-70b' } } },
  environment: { ...env, llm: { provider: 'groq', model: 'llama-3.3-70b' } },
});
const retrievalOf = (config: Report['config'], n: number | null): Report => {
  const r = multiModeReport({ bm25: [0.1, 0.5, 0.9], dense: [0.2, 0.4, 0.6] });
  return { ...r, id: 'title-retrieval', config, n, data: { ...r.data, dataset: 'BeIR/scifact', subsets: ['test'] } };
};

describe('the generated title', () => {
  it('names each kind by what distinguishes its runs', () => {
    expect(generatedTitle(validate)).toBe('RAGBench · covidqa, hotpotqa · NLI · seed 7 · N 12');
    expect(generatedTitle(judged)).toBe('RAGBench · covidqa · LLM judge llama-3.1-8b-instant · seed 3');
    expect(generatedTitle(pipeline)).toBe('RAGBench pipeline · emanual · hybrid · llama-3.3-70b · lexical · seed 1 · N 20');
    expect(generatedTitle(retrievalOf({ kind: 'retrieval', protocol: 'seed-b', modes: ['bm25', 'dense'] }, 300))).toBe('Retrieval · scifact · seed-b · 300 queries · seed 7');
    // No sample asked for: the queries of one mode are counted; the default protocol is not named.
    expect(generatedTitle(retrievalOf({ kind: 'retrieval', protocol: 'default' }, null))).toBe('Retrieval · scifact · 3 queries · seed 7');
  });

  it('lists at most three subsets and stays within the title limit', () => {
    const many = testReport(['a', 'b', 'c', 'd', 'e'].flatMap((g) => rows(g, 2)), { id: 'title-many' });
    expect(generatedTitle(many)).toBe('RAGBench · a, b, c +2 more · lexical · seed 0');
    const long = { ...judged, environment: { ...env, judge: { provider: 'x', model: 'm'.repeat(300) } } };
    expect(generatedTitle(long).length).toBe(200);
  });

  it('the user\'s title wins; an empty or blank one gives the generated title', () => {
    expect(reportTitle({ ...validate, title: 'Tuned NLI' })).toBe('Tuned NLI');
    expect(reportTitle({ ...validate, title: '   ' })).toBe(generatedTitle(validate));
  });

  it('the details line shows subsets, evaluator, mode, seed and N', () => {
    expect(reportDetails(validate)).toBe('subsets covidqa, hotpotqa · evaluator NLI · mode validate · seed 7 · N 12 per subset');
    expect(reportDetails(pipeline)).toContain('mode pipeline');
    expect(reportDetails(retrievalOf({ kind: 'retrieval', protocol: 'seed-b', modes: ['bm25', 'dense'] }, null)))
      .toBe('split test · modes bm25, dense · protocol seed-b · seed 7 · all queries');
  });

  it('list entries carry it; an entry saved before titles were generated still passes its schema and gets a name', () => {
    const m = reportMeta(validate, 'run');
    expect(m).toMatchObject({ generated: generatedTitle(validate), details: reportDetails(validate), fingerprint: runFingerprint(validate) });
    expect(metaTitle(m)).toBe(generatedTitle(validate));
    expect(metaTitle({ ...m, title: 'Mine' })).toBe('Mine');
    const { generated: _g, details: _d, fingerprint: _f, ...old } = m;
    expect(v.safeParse(ReportMetaSchema, old).success).toBe(true);
    expect(metaTitle(old)).toBe('RAGBench · ragbench · nli');
  });
});

describe('the same name everywhere', () => {
  const a = { ...validate, id: 'title-cmp-a', title: '' };
  const b = { ...validate, id: 'title-cmp-b', title: 'Second NLI run', seed: 8 };

  it('Compare and rag-lab compare name reports by their title, not their id', () => {
    const r = compareReports([a, b], { iterations: 0, permutations: 0 });
    if (!r.ok) throw new Error(r.message);
    expect(r.reports.map((x) => x.title)).toEqual([generatedTitle(a), 'Second NLI run']);
    const text = compareText(r).join('\n');
    expect(text).toContain(`baseline "${generatedTitle(a)}"`);
    expect(text).toContain(`${generatedTitle(a)} (baseline)`);
    expect(text).not.toContain('title-cmp-a (baseline)');
    // The config diff's columns are titled too (seed differs).
    expect(text).toMatch(new RegExp(`path\\s+${generatedTitle(a).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+Second NLI run`));
  });

  it('exports carry it: the file names and the JSON title field', () => {
    const json = reportFile(a, 'json');
    expect(json.name).toBe('RAGBench-covidqa-hotpotqa-NLI-seed-7-N-12-title-cmp-a.json');
    const back = parseReportText(json.text);
    expect(back.ok && back.report.title).toBe(generatedTitle(a));
    expect(reportFile(a, 'md').text.split('\n')[0]).toBe(`# ${generatedTitle(a)}`);
    expect(reportFile(b, 'csv').name).toBe('Second-NLI-run-title-cmp-b.csv');
  });
});

describe('identical re-runs', () => {
  const first = { ...validate, id: 'rerun-first-1', title: 'My NLI run', notes: 'keep this', draft: false };
  const again: Report = { ...validate, id: 'rerun-again-1', createdAt: '2026-12-02T12:00:00.000Z', rows: [...validate.rows].reverse() };

  it('the fingerprint is the kind, dataset, config hash and the set of row keys', () => {
    expect(runFingerprint(again)).toBe(runFingerprint(first));
    expect(runFingerprint({ ...again, configHash: 'fedcba987654' })).not.toBe(runFingerprint(first));
    expect(runFingerprint({ ...again, rows: again.rows.slice(1) })).not.toBe(runFingerprint(first));
    expect(runFingerprint({ ...again, rows: again.rows.map((r, i) => (i === 0 ? { ...r, key: 'covidqa:other' } : r)) })).not.toBe(runFingerprint(first));
    const metas = [reportMeta(first, 'run')];
    expect(duplicateOf(again, metas)?.id).toBe(first.id);
    expect(duplicateOf(first, metas)).toBeNull();
    expect(duplicateOf({ ...again, configHash: 'fedcba987654' }, metas)).toBeNull();
  });

  it('replace: the re-run takes the older report\'s title, notes and kept state', () => {
    const m = reportMeta(first, 'run');
    expect(asReplacement({ ...again, draft: true }, m)).toMatchObject({ id: again.id, title: 'My NLI run', notes: 'keep this', draft: false, rows: again.rows });
    expect(asReplacement({ ...again, draft: true, notes: 'new' }, { ...m, notes: '', draft: true })).toMatchObject({ notes: 'new', draft: true });
  });
});
