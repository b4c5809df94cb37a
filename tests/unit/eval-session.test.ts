/** The EVALUATORS registry and the benchmark session (validate and pipeline) with the reports they return. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseRagbenchJsonl, ragbenchRowKey, type RagbenchRow } from '../../src/lib/data/ragbench.ts';
import { buildRagbenchKb } from '../../src/lib/data/ragbench-kb.ts';
import { configHash, MemoryResultStore } from '../../src/lib/eval/ragbench-run/resumable-rows.ts';
import { EVALUATOR_IDS, EVALUATORS } from '../../src/lib/eval/score/evaluators.ts';
import { lexicalRowEvaluator, sampleRows } from '../../src/lib/eval/ragbench/validate-mode.ts';
import { runPipelineSession, runValidateSession, validateConfigHash, type SessionReportContext } from '../../src/lib/eval/ragbench-run/ragbench-loops.ts';
import type { ChatProvider, ChatRequest, ChatResult, ChatStreamEvent } from '../../src/lib/llm/types.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG } from '../../src/lib/rag/config.ts';
import { parseReport, serializeReport, parseReportText, type Report } from '../../src/lib/reports/format.ts';
import { APP_VERSION } from '../../src/lib/reports/app-version.ts';
import type { TraceScores } from '../../src/lib/eval/metrics/trace.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const load = (s: string) => parseRagbenchJsonl(readFileSync(join(DATA, `${s}.jsonl`), 'utf8'), s).rows;
const emanual = load('emanual');
const covidqa = load('covidqa');

const CONTEXT: SessionReportContext = {
  config: { mode: 'validate', note: 'test' }, environment: { runtime: 'node', agent: 'node test', models: [] }, source: 'local',
};

/** Hallucination AUROC by counting pairs: P(score of a hallucinated row > score of a supported row), ties ½. */
function aurocByPairs(report: Report, group: string): number {
  const rows = report.rows.filter((r) => r.group === group && typeof r.gold['adherence'] === 'boolean' && r.scores['adherence'] !== null);
  const pos = rows.filter((r) => r.gold['adherence'] === false).map((r) => 1 - r.scores['adherence']!);
  const neg = rows.filter((r) => r.gold['adherence'] === true).map((r) => 1 - r.scores['adherence']!);
  let wins = 0;
  for (const p of pos) for (const q of neg) wins += p > q ? 1 : p === q ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

const questionOf = (req: ChatRequest) => /The question was:\n"{3}\n([\s\S]*?)\n"{3}/.exec(req.messages.at(-1)!.content)![1]!;

/** A judge that throws for questions whose length is a multiple of 7 and calls "supported" those of even length. */
function fakeJudge(opts: { onCall?: () => void } = {}) {
  const calls: string[] = [];
  const provider: ChatProvider = {
    id: 'openai',
    chat: async (req): Promise<ChatResult> => {
      opts.onCall?.();
      const q = questionOf(req);
      calls.push(q);
      if (q.length % 7 === 0) throw new Error('HTTP 503 from judge');
      const text = JSON.stringify({ overall_supported: q.length % 2 === 0, all_relevant_sentence_keys: ['0a', '0b'], all_utilized_sentence_keys: ['0a'] });
      return { text, usage: { inputTokens: 100, outputTokens: 10 }, finishReason: 'stop', model: req.model };
    },
    stream: async () => { throw new Error('the judge does not stream'); },
  };
  return { provider, calls };
}

const JUDGE = { provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'judge', repeats: 1 };

describe('EVALUATORS', () => {
  test('one entry per evaluator id, each with a label', () => {
    expect(Object.keys(EVALUATORS).sort()).toEqual([...EVALUATOR_IDS].sort());
    for (const id of EVALUATOR_IDS) {
      expect(EVALUATORS[id].id).toBe(id);
      expect(EVALUATORS[id].label.length).toBeGreaterThan(0);
    }
    expect(EVALUATORS.llm.api).toBe(true);
    expect(EVALUATORS.lexical.api).toBe(false);
  });

  test('the config hashes are those the bench worker cached rows under (cached rows stay valid)', async () => {
    expect(await validateConfigHash('lexical', {})).toBe(await configHash({ evaluator: 'lexical', mode: 'validate', version: 1, settings: {} }));
    const nliModels = { nli: 'Xenova/nli-deberta-v3-xsmall@q8', reranker: null };
    expect(await validateConfigHash('nli', { nliModels })).toBe(await configHash({ evaluator: 'nli', mode: 'validate', version: 1, settings: { ...nliModels } }));
    expect(await validateConfigHash('llm', { judge: JUDGE })).toBe(await configHash({ evaluator: 'llm', mode: 'validate', version: 1, settings: JUDGE }));
    // Repeats and temperature change scores; a different judge model is a different hash.
    expect(await validateConfigHash('llm', { judge: { ...JUDGE, repeats: 3 } })).not.toBe(await validateConfigHash('llm', { judge: JUDGE }));
    expect(await validateConfigHash('llm', { judge: { ...JUDGE, temperature: 0.5 } })).not.toBe(await validateConfigHash('llm', { judge: JUDGE }));
  });

  test('building says what is missing; the lexical entry scores as lexicalRowEvaluator', async () => {
    expect(() => EVALUATORS.nli.build({}, {})).toThrow(/NLI model/);
    expect(() => EVALUATORS.llm.build({ judge: JUDGE }, {})).toThrow(/provider and model/);
    expect(() => EVALUATORS.llm.build({}, { judge: fakeJudge().provider })).toThrow(/provider and model/);
    const built = EVALUATORS.lexical.build({}, {});
    const ref = lexicalRowEvaluator();
    for (const row of emanual.slice(0, 5)) expect(await built.row(row)).toEqual(await ref(row));
  });
});

describe('runValidateSession', () => {
  test('lexical on two subsets: figures per subset, a valid report with one row per scored row, AUROC equal to the subset figure', async () => {
    const s = await runValidateSession({
      evaluator: 'lexical', settings: {}, deps: {}, subsets: [{ subset: 'emanual', rows: emanual }, { subset: 'covidqa', rows: covidqa }],
      store: new MemoryResultStore(), n: 40, seed: 2, bootstrap: 200, report: CONTEXT,
    });
    expect(s.runs.map((r) => r.validation.n)).toEqual([40, 40]);
    const report = s.report!;
    expect(parseReport(JSON.parse(serializeReport(report))).ok).toBe(true);
    expect(parseReportText(serializeReport(report))).toMatchObject({ ok: true });
    expect(report.kind).toBe('ragbench-validate');
    expect(report.configHash).toBe(s.hash);
    expect(report.data).toEqual({ dataset: 'rungalileo/ragbench', revision: null, subsets: ['emanual', 'covidqa'], source: 'local', kb: null });
    expect(report.environment).toMatchObject({ app: APP_VERSION, runtime: 'node', agent: 'node test', llm: null, judge: null });
    expect(report.rows).toHaveLength(80);
    const expectedKeys = [...sampleRows(emanual, 40, 2).map((r) => `emanual:${ragbenchRowKey(r)}`), ...sampleRows(covidqa, 40, 2).map((r) => `covidqa:${ragbenchRowKey(r)}`)];
    expect(report.rows.map((r) => r.key)).toEqual(expectedKeys);
    const row0 = report.rows[0]!;
    const src = sampleRows(emanual, 40, 2)[0]!;
    expect(row0).toMatchObject({ group: 'emanual', question: src.question, answer: src.response, contexts: src.documents });
    expect(row0.gold).toEqual({ relevance: src.relevance_score, utilization: src.utilization_score, completeness: src.completeness_score, adherence: src.adherence_score });
    expect(Object.keys(row0.reference!)).toEqual(['ragas_faithfulness', 'trulens_groundedness', 'gpt3_adherence', 'ragas_context_relevance', 'trulens_context_relevance', 'gpt3_context_relevance', 'gpt35_utilization']);
    for (const run of s.runs) {
      const v = run.validation;
      const m = (id: string) => report.summary.metrics.find((x) => x.id === id && x.group === v.subset)!;
      expect(m('auroc').value).toBeCloseTo(v.auroc, 12);
      expect(m('auroc').value).toBeCloseTo(aurocByPairs(report, v.subset), 12);
      expect(m('rmse_relevance').value).toBeCloseTo(v.rmse_relevance, 12);
      expect(m('auroc').ci).not.toBeNull();
      expect(report.summary.baselines).toContainEqual({ group: v.subset, evaluator: 'ragas', metric: 'auroc', value: v.baselines.ragas.auroc });
      expect(v.intervals).toBeDefined();
      expect(v.warnings).toBeDefined();
    }
    expect(report.summary.baselines.some((b) => b.group === null)).toBe(true);
    // emanual has few hallucinated rows: the small-sample warning reaches the report.
    expect(report.summary.warnings.some((w) => w.group === 'emanual' && /AUROC/.test(w.message))).toBe(true);
  });

  test('a row key shared by two subsets (covidqa and msmarco both have 711 / gpt-3.5) is cached per subset', async () => {
    const msmarco = load('msmarco');
    const shared = new Set(covidqa.map(ragbenchRowKey).filter((k) => msmarco.some((r) => ragbenchRowKey(r) === k)));
    expect(shared.size).toBeGreaterThan(0);
    const pick = (rows: RagbenchRow[]) => rows.filter((r) => shared.has(ragbenchRowKey(r)));
    const run = (subsets: { subset: string; rows: RagbenchRow[] }[], store = new MemoryResultStore()) =>
      runValidateSession({ evaluator: 'lexical', settings: {}, deps: {}, subsets, store, seed: 0, bootstrap: 0, report: CONTEXT, withReport: false });
    const store = new MemoryResultStore();
    const both = await run([{ subset: 'covidqa', rows: pick(covidqa) }, { subset: 'msmarco', rows: pick(msmarco) }], store);
    const alone = await run([{ subset: 'msmarco', rows: pick(msmarco) }]);
    expect(both.runs[1]!.computed).toBe(shared.size);
    expect(both.runs[1]!.validation.predictions).toEqual(alone.runs[0]!.validation.predictions);
    expect(both.runs[1]!.validation.predictions).not.toEqual(both.runs[0]!.validation.predictions);
    // A second run over the same store takes both subsets from the cache, each its own.
    const again = await run([{ subset: 'covidqa', rows: pick(covidqa) }, { subset: 'msmarco', rows: pick(msmarco) }], store);
    expect(again.runs.map((r) => r.computed)).toEqual([0, 0]);
    const trace = (ps: TraceScores[]) => ps.map(({ relevance, utilization, adherence, completeness }) => ({ relevance, utilization, adherence, completeness }));
    expect(again.runs.map((r) => trace(r.validation.predictions))).toEqual(both.runs.map((r) => trace(r.validation.predictions)));
  });

  test('llm judge: failing rows listed (not cached), cached rows reused by the next run, usage and repeats tracked', async () => {
    const n = 30, seed = 4;
    const sample = sampleRows(emanual, n, seed);
    const failing = sample.filter((r) => r.question.trim().length % 7 === 0).map(ragbenchRowKey);
    expect(failing.length).toBeGreaterThan(0);
    const store = new MemoryResultStore();
    const j1 = fakeJudge();
    const first = await runValidateSession({
      evaluator: 'llm', settings: { judge: JUDGE }, deps: { judge: j1.provider }, subsets: [{ subset: 'emanual', rows: emanual }],
      store, n, seed, concurrency: 3, bootstrap: 0, report: CONTEXT, redact: (m) => m.replace('503', '[status]'),
    });
    expect(j1.calls).toHaveLength(n);
    expect(first.failures.map((f) => f.key).sort()).toEqual([...failing].sort());
    expect(first.failures[0]!.reason).toContain('[status]');
    expect(first.runs[0]!.validation.n).toBe(n - failing.length);
    expect(first.judge!.usage.summary.calls).toBe(n - failing.length);
    expect(first.judge!.usage.failedCalls).toBe(failing.length);
    expect(first.judge!.trackers.get('emanual')!.byKey.size).toBe(n - failing.length);
    const report = first.report!;
    expect(parseReport(JSON.parse(serializeReport(report))).ok).toBe(true);
    expect(report.rows).toHaveLength(n - failing.length);
    expect(report.rows.some((r) => failing.includes(r.key.slice('emanual:'.length)))).toBe(false);
    expect(report.summary.notes[0]).toMatch(new RegExp(`^${failing.length} rows? failed and left out`));
    expect(report.environment.judge).toEqual({ provider: 'openai', model: 'judge' });
    expect(report.summary.extra['judge']).toMatchObject({ calls: n - failing.length, failedCalls: failing.length });
    // Predicted adherence follows the judge's rule.
    for (const r of report.rows) expect(r.scores['adherence']).toBe(r.question.trim().length % 2 === 0 ? 1 : 0);

    const j2 = fakeJudge();
    const second = await runValidateSession({
      evaluator: 'llm', settings: { judge: JUDGE }, deps: { judge: j2.provider }, subsets: [{ subset: 'emanual', rows: emanual }],
      store, n, seed, bootstrap: 0, report: CONTEXT,
    });
    // Only the failed rows are asked again (they fail again); the others come from the cache.
    expect(j2.calls).toHaveLength(failing.length);
    expect(second.runs[0]!.computed).toBe(0);
    expect(second.runs[0]!.validation.auroc).toBe(first.runs[0]!.validation.auroc);
  });

  test('cancel: the session rejects, finished rows stay in the store and the next run scores only the rest', async () => {
    const n = 20, seed = 1;
    const ok = sampleRows(emanual, n, seed).filter((r) => r.question.trim().length % 7 !== 0).length;
    const store = new MemoryResultStore();
    const ctl = new AbortController();
    let calls = 0;
    const j = fakeJudge({ onCall: () => { if (++calls === 8) ctl.abort(); } });
    const run = (signal?: AbortSignal, judge = j.provider) => runValidateSession({
      evaluator: 'llm', settings: { judge: JUDGE }, deps: { judge }, subsets: [{ subset: 'emanual', rows: emanual }],
      store, n, seed, bootstrap: 0, report: CONTEXT, ...(signal ? { signal } : {}),
    });
    await expect(run(ctl.signal)).rejects.toThrow();
    const kept = (await store.getAll(await validateConfigHash('llm', { judge: JUDGE }))).scores.size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(ok);
    const again = fakeJudge();
    const s = await run(undefined, again.provider);
    expect(s.runs[0]!.computed).toBe(ok - kept);
    expect(s.runs[0]!.validation.n).toBe(ok);
  });
});

/** A scripted answering model: copies the first sentence of source 1 with a citation. */
function copyingProvider(): ChatProvider {
  return {
    id: 'openai',
    chat: async () => { throw new Error('the pipeline streams its answers'); },
    stream: async (req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult> => {
      const src = /<source id="1"[^>]*>\n([\s\S]*?)\n<\/source>/.exec(req.messages.at(-1)!.content)![1]!.trim();
      const text = `${/^[\s\S]*?[.!?](?=\s|$)/.exec(src)?.[0] ?? src} [1]`;
      onDelta({ delta: text });
      return { text, usage: { inputTokens: 1000, outputTokens: 20 }, finishReason: 'stop', model: req.model };
    },
  };
}

describe('runPipelineSession', () => {
  const rag = cloneConfig(DEFAULT_RAG_CONFIG);
  rag.llm.provider = 'openai';
  rag.llm.model = 'copier';
  rag.llm.baseUrl = 'http://127.0.0.1:9/v1';

  test('lexical: per-subset results and a report whose rows and intervals rest on the questions asked', async () => {
    const s = await runPipelineSession({
      evaluator: 'lexical', settings: {}, deps: {}, subsets: [{ subset: 'emanual', rows: emanual, kb: buildRagbenchKb(emanual, 'emanual') }],
      rag, answerer: copyingProvider(), models: {}, n: 6, seed: 2, bootstrap: 200, report: { ...CONTEXT, config: { mode: 'pipeline' } },
    });
    const r = s.results[0]!;
    expect(r.n).toBe(6);
    const report = s.report!;
    expect(parseReport(JSON.parse(serializeReport(report))).ok).toBe(true);
    expect(report.kind).toBe('ragbench-pipeline');
    expect(report.data.kb).toBe('ragbench:emanual');
    expect(report.environment.llm).toEqual({ provider: 'openai', model: 'copier' });
    expect(report.rows.map((x) => x.key)).toEqual(r.rows.map((x) => `emanual:${x.id}`));
    for (const [i, x] of report.rows.entries()) {
      expect(x.status).toBe(r.rows[i]!.status);
      expect(x.retrieved).toEqual(r.rows[i]!.retrieved);
      expect(x.scores['recall']).toBeCloseTo(r.rows[i]!.recall, 12);
    }
    const pooled = (id: string) => report.summary.metrics.find((m) => m.id === id && m.group === null)!;
    expect(pooled('recall_at_k').value).toBeCloseTo(r.recallAtK, 12);
    expect(pooled('relevant_recall_at_k').value).toBeCloseTo(r.relevantRecallAtK, 12);
    expect(pooled('adherence').value).toBeCloseTo(r.predicted.adherence, 12);
    expect(pooled('answered').value).toBeCloseTo((r.statuses.answered ?? 0) / 6, 12);
    expect(pooled('recall_at_k').ci).not.toBeNull();
    // Six questions: every figure carries the small-sample warning.
    expect(report.summary.warnings.some((w) => /recall@k from \d scored rows: not meaningful/.test(w.message))).toBe(true);
    expect(s.answers.summary.calls).toBe(r.statuses.answered ?? 0);
    expect(s.hash).toMatch(/^[0-9a-f]{24}$/);
  });

  test('the llm judge scores the answers: judge calls metered apart from the answers, repeats tracked, a different hash', async () => {
    const j = fakeJudge();
    const settings = { judge: { ...JUDGE, repeats: 2 } };
    const s = await runPipelineSession({
      evaluator: 'llm', settings, deps: { judge: j.provider }, subsets: [{ subset: 'emanual', rows: emanual, kb: buildRagbenchKb(emanual, 'emanual') }],
      rag, answerer: copyingProvider(), models: {}, n: 4, seed: 0, bootstrap: 0, report: CONTEXT,
    });
    const answered = s.results[0]!.rows.filter((x) => x.status === 'answered');
    expect(answered.length).toBeGreaterThan(0);
    expect(j.calls).toHaveLength(2 * answered.length);
    expect(s.answers.summary.calls).toBe(answered.length);
    expect(s.judge!.trackers.get('emanual')!.byKey.size + s.judge!.usage.failedCalls / 2).toBe(answered.length);
    expect(s.report!.environment.judge).toEqual({ provider: 'openai', model: 'judge' });
    const lexical = await runPipelineSession({
      evaluator: 'lexical', settings: {}, deps: {}, subsets: [{ subset: 'emanual', rows: emanual, kb: buildRagbenchKb(emanual, 'emanual') }],
      rag, answerer: copyingProvider(), models: {}, n: 4, seed: 0, bootstrap: 0, report: CONTEXT, withReport: false,
    });
    expect(lexical.report).toBeNull();
    expect(lexical.hash).not.toBe(s.hash);
  });
});
