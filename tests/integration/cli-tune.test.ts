/**
 * `rag-lab tune` in-process on a SciFact subset with a corpus-trained embedder: the split, the rungs, every trial's
 * config hash (the same as eval-beir's report gives that setting: a trial is a retrieval run), the front among the
 * finalists, the held-out figures and the verdict; the same winner on a second run; --config-out; the flags' errors.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { evalBeirCommand } from '../../cli/eval-beir.ts';
import { tuneCommand } from '../../cli/tune.ts';
import { parseReportText } from '../../src/lib/reports/format.ts';
import { RUN_SETTINGS, type RunFlatKey } from '../../src/lib/settings/retrieval-run.ts';
import { scifactSubset } from '../helpers/beir-subset.ts';
import { captureCommand } from '../helpers/cli.ts';

let tmp: string;
let small: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rag-lab-tune-'));
  small = scifactSubset({ queries: 30, others: 60, parent: tmp });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!);

describe('rag-lab tune', () => {
  test('a seeded tune: split, rungs, trials with config hashes, front, held-out figures; the same winner again; the winner as eval-beir runs it', async () => {
    const cfg = join(tmp, 'best.json');
    const args = ['--data', small, '--train-embedder', '--budget', '12', '--json'];
    const r1 = await captureCommand(tuneCommand, [...args, '--config-out', cfg]);
    expect(r1.error).toBeNull();
    const t = lastJson(r1.out);
    // what every figure was measured on: the data and the embedder trained on it
    expect(t.identity).toMatchObject({ dataset: 'scifact-subset', kb: null, reranker: null, embedder: expect.stringMatching(/^corpus\/.*lsi256@/), embedderCorpus: { thisDataset: true } });
    expect(t.split).toEqual({ seed: 0, heldOutFraction: 0.3, tuning: 21, heldOut: 9 });
    // 12 trials, 8 finalists: ⌈log3(12/8)⌉ = 1 rung after the first; 20 then all 21 tuning queries
    expect(t.rungs).toEqual([{ candidates: 12, queries: 20 }, { candidates: 8, queries: 21 }]);
    // 12 sampled trials, then the vector index kinds (int8, hnsw) beside each finalist with a dense side
    const sampled = t.trials.slice(0, 12), beside = t.trials.slice(12);
    expect(new Set(sampled.map((x: { mode: string }) => x.mode))).toEqual(new Set(['sparse', 'dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated']));
    for (const x of sampled) expect(x.label).not.toMatch(/--index/);
    const denseFinalists = sampled.filter((x: { finalist: boolean; mode: string }) => x.finalist && x.mode !== 'sparse');
    expect(beside.map((x: { label: string }) => x.label).sort()).toEqual(denseFinalists.flatMap((x: { label: string }) => [`${x.label} --index int8`, `${x.label} --index hnsw`]).sort());
    for (const x of beside) expect(x).toMatchObject({ finalist: true, rung: 1, queries: 21 });
    expect(t.notes).toContain(`index tried beside the ${denseFinalists.length} finalists it applies to: ${beside.length} more trials on 21 tuning queries`);
    for (const x of t.trials) expect(x.configHash).toMatch(/^[0-9a-f]{24}$/);
    expect(new Set(t.trials.map((x: { configHash: string; mode: string }) => `${x.mode}:${x.configHash}`)).size).toBe(t.trials.length);
    const finalists = t.trials.filter((x: { finalist: boolean }) => x.finalist).map((x: { id: number }) => x.id);
    expect(finalists).toHaveLength(8 + beside.length);
    for (const id of t.front) expect(finalists).toContain(id);
    expect(finalists).toContain(t.winner);
    // the winner is the best sampled finalist on the tuning queries (an index kind beside one does not pick it)
    const best = Math.max(...sampled.filter((x: { finalist: boolean }) => x.finalist).map((x: { score: number }) => x.score));
    expect(t.trials[t.winner].score).toBe(best);
    expect(t.winner).toBeLessThan(12);
    expect(t.heldOut.current.label).toBe('sparse');
    expect(t.heldOut.figures.map((f: { trial: number }) => f.trial)).toContain(t.winner);
    expect(t.verdict).toMatch(/held-out queries|nothing to adopt/);
    expect(JSON.parse(readFileSync(cfg, 'utf8'))).toEqual(t.winnerSettings);
    // the learned per-query α, fitted on the tuning queries, against the best fixed α and RRF on the held-out ones
    expect(t.learnedAlpha.fitted + t.learnedAlpha.flat).toBe(21);
    expect(t.learnedAlpha.against.map((a: { label: string }) => a.label)).toEqual([`the best fixed α (${t.learnedAlpha.bestFixedAlpha})`, 'RRF']);
    expect(t.learnedAlpha.verdict).toMatch(/^Learned per-query α .*: on the 9 held-out queries ndcg@10 \d\.\d{4}; it /);

    const t2 = lastJson((await captureCommand(tuneCommand, args)).out);
    expect(t2.winner).toBe(t.winner);
    expect(t2.trials.map((x: { configHash: string; score: number }) => [x.configHash, x.score])).toEqual(t.trials.map((x: { configHash: string; score: number }) => [x.configHash, x.score]));

    // A trial is a retrieval run: eval-beir with its settings, as flags or as the --config-out file, records the same config hash.
    const w = t.trials[t.winner] as { mode: string; values: Record<string, string | number | null>; configHash: string };
    const flags = Object.entries(w.values).flatMap(([k, x]) => (x === null ? [] : [`--${RUN_SETTINGS[k as RunFlatKey].flag}`, String(x)]));
    const hashOf = async (extra: string[]) => {
      const report = join(tmp, 'winner.json');
      const e = await captureCommand(evalBeirCommand, ['--data', small, '--train-embedder', '--no-predictors', ...extra, '--report-out', report]);
      expect(e.error).toBeNull();
      const parsed = parseReportText(readFileSync(report, 'utf8'));
      if (!parsed.ok) throw new Error(parsed.message);
      return { hash: parsed.report.configHash, modes: parsed.report.config['modes'] };
    };
    expect(await hashOf(['--modes', w.mode, ...flags])).toEqual({ hash: w.configHash, modes: [w.mode] });
    expect(await hashOf(['--config', cfg])).toEqual({ hash: w.configHash, modes: [w.mode] });
    // a flag given wins over the file's value
    expect((await hashOf(['--config', cfg, '--depth', '50'])).hash).not.toBe(w.configHash);
  });

  test('eval-beir --config: a file that is not a tune\'s settings says what is wrong', async () => {
    const bad = join(tmp, 'bad.json');
    for (const [text, message] of [
      ['{"mode":"sparse","settings":{"alpha":2}}', /--config .*bad\.json: settings\.alpha: must be at most 1/],
      ['{"mode":"fastest","settings":{}}', /mode: mode must be one of sparse/],
      ['{"mode":"sparse","settings":{"bogus":1}}', /unknown setting "bogus"/],
      ['{"mode":"dense","settings":{},"embedder":"x y"}', /embedder: embedder must be a model id as --embedder takes it/],
      ['{"mode":"dense","settings":{},"reranker":"x"}', /holds \{ "mode", "settings" \} \(and an "embedder"\) and nothing else/],
      ['not json', /is not JSON/],
      [' '.repeat(70 * 1024), /over 64 kB, too large for a settings file/],
    ] as const) {
      writeFileSync(bad, text);
      const r = await captureCommand(evalBeirCommand, ['--data', small, '--config', bad]);
      expect(r.error?.message).toMatch(message);
    }
  });

  test('the printed table names the split, the finalists, the winner and the verdict', async () => {
    const r = await captureCommand(tuneCommand, ['--data', small, '--budget', '6', '--modes', 'sparse', '--space', 'k1=0.6,1.2', '--space', 'b=0.4,0.9']);
    expect(r.error).toBeNull();
    expect(r.out).toMatch(/tuned scifact-subset \(no embedder\): 5 trials of 5 settings \(modes sparse; k1, b\)/);
    expect(r.out).toMatch(/split \(seed 0\): 21 tuning, 9 held-out queries/);
    expect(r.out).toMatch(/\(winner\)/);
    expect(r.out).toMatch(/^note: the budget of 6 trials is more than the space holds: 5 trials ran$/m);
    expect(r.out).toMatch(/^note: the learned per-query α was not fitted: it needs the fixed hybrid and RRF/m);
  });

  test('--kb: an artifact tuned on its own queries and qrels, or on a test set imported as BEIR files; its chunking and BM25 are kept', async () => {
    const out = join(tmp, 'kb');
    const { buildIndexCommand } = await import('../../cli/build-index.ts');
    expect((await captureCommand(buildIndexCommand, ['--data', small, '--out', out])).error).toBeNull();
    const own = lastJson((await captureCommand(tuneCommand, ['--kb', out, '--budget', '4', '--json'])).out);
    expect(own.space).toMatchObject({ modes: ['sparse'], dimensions: [], size: 1 });
    expect(own.split).toMatchObject({ tuning: 21, heldOut: 9 });
    expect(own.notes.join('\n')).toMatch(/dense is not in the space|dense.*not in the space/);
    const imported = lastJson((await captureCommand(tuneCommand, ['--kb', out, '--data', small, '--budget', '4', '--json'])).out);
    expect(imported.trials[0].configHash).toBe(own.trials[0].configHash);
    const r = await captureCommand(tuneCommand, ['--kb', out, '--train-embedder']);
    expect(r.error?.message).toMatch(/--train-embedder trains the embedder on --data/);
  });

  test('--pseudo: labelled, checked against labelled queries (--agree-with), and not adopted unless the check passes', async () => {
    // without the check, a winner on pseudo-queries is never written
    const cfg = join(tmp, 'pseudo-best.json');
    const alone = await captureCommand(tuneCommand, ['--data', small, '--modes', 'sparse', '--budget', '8', '--pseudo', '20', '--config-out', cfg, '--json']);
    expect(lastJson(alone.out)).toMatchObject({ testSetLabel: 'pseudo-queries: biased toward lexical matching', agreement: null, adoptable: false });
    expect(alone.error?.message).toMatch(/--config-out .*: not written: a winner on pseudo-queries is not adopted unless --agree-with labelled queries passes/);
    expect(() => readFileSync(cfg)).toThrow();
    const r = await captureCommand(tuneCommand, ['--data', small, '--modes', 'sparse', '--budget', '8', '--pseudo', '20', '--agree-with', small, '--json']);
    const t = lastJson(r.out);
    expect(t.testSetLabel).toBe('pseudo-queries: biased toward lexical matching');
    expect(t.split.tuning + t.split.heldOut).toBe(20);
    expect(t.agreement).toMatchObject({ settings: 8, reference: small, other: 'pseudo-queries: biased toward lexical matching' });
    expect(typeof t.agreement.regret).toBe('number');
    expect(t.adoptable).toBe(t.agreement.passes);
    // labelled queries checked against pseudo-queries: the labelled set is the reference, the winner adoptable
    const l = lastJson((await captureCommand(tuneCommand, ['--data', small, '--modes', 'sparse', '--budget', '8', '--agree-with', 'pseudo:15', '--json'])).out);
    expect(l).toMatchObject({ testSetLabel: null, adoptable: true, agreement: { reference: 'this test set', other: 'pseudo:15 (pseudo-queries: biased toward lexical matching)' } });
  });

  test('search --config: the settings file\'s mode, search settings and BM25 (the postings re-weighted: retrieval/bm25-variant.ts); a flag wins', async () => {
    const { buildIndexCommand } = await import('../../cli/build-index.ts');
    const { searchCommand } = await import('../../cli/search.ts');
    const kb = join(tmp, 'kb-plain'), cfg = join(tmp, 'sparse.json');
    expect((await captureCommand(buildIndexCommand, ['--data', small, '--out', kb])).error).toBeNull();
    writeFileSync(cfg, JSON.stringify({ mode: 'sparse', settings: { k1: 1.5, b: 0.9, alpha: 0.3, candidateK: null, calibration: 'zscore' } }));
    const q = 'cancer risk in smokers';
    const viaFile = await captureCommand(searchCommand, ['--kb', kb, '--config', cfg, '--json', q]);
    expect(viaFile.error).toBeNull();
    expect(viaFile.err).toMatch(/BM25 k1 1\.5, b 0\.9 \(the index was built with 0\.9, 0\.4\)/);
    const a = lastJson(viaFile.out), plain = lastJson((await captureCommand(searchCommand, ['--kb', kb, '--alpha', '0.3', '--calibration', 'zscore', '--json', q])).out);
    expect(a).toMatchObject({ mode: 'sparse', alpha: 0.3, calibration: 'zscore', k1: 1.5, b: 0.9 });
    expect(plain).toMatchObject({ mode: 'sparse', alpha: 0.3, calibration: 'zscore' });
    // the same settings but BM25's k1 and b: other scores
    expect(a.results[0].hits.map((h: { score: number }) => h.score)).not.toEqual(plain.results[0].hits.map((h: { score: number }) => h.score));
    expect(lastJson((await captureCommand(searchCommand, ['--kb', kb, '--config', cfg, '--alpha', '0.9', '--json', q])).out).alpha).toBe(0.9);
    // --k1 / --b are search flags too: the same scores as the file's BM25.
    const flags = lastJson((await captureCommand(searchCommand, ['--kb', kb, '--k1', '1.5', '--b', '0.9', '--alpha', '0.3', '--calibration', 'zscore', '--json', q])).out);
    expect(flags.results[0].hits.map((h: { score: number }) => h.score)).toEqual(a.results[0].hits.map((h: { score: number }) => h.score));
  });

  test('--rebuild: chunking joins the space, each chunking built once and its chunks embedded by the same embedder', async () => {
    const r = await captureCommand(tuneCommand, ['--data', small, '--train-embedder', '--rebuild', '--modes', 'sparse,hybrid_fixed', '--space', 'k1=0.9', '--space', 'b=0.4', '--space', 'alpha=0.5', '--space', 'candidate-k=auto', '--space', 'analyzer=english', '--space', 'index=exact', '--budget', '8', '--json']);
    expect(r.error).toBeNull();
    const t = lastJson(r.out);
    expect(t.space.dimensions.map((d: { key: string }) => d.key)).toEqual(expect.arrayContaining(['chunked', 'chunkSize', 'analyzer']));
    // whole documents (the current) and chunks of 400, 800 (the default: --chunk) and 1600 for each mode: 4 × 2 settings
    expect(t.space.size).toBe(8);
    expect(t.trials.map((x: { label: string }) => x.label).sort()).toEqual([
      'hybrid_fixed', 'hybrid_fixed --chunk', 'hybrid_fixed --chunk --chunk-size 1600', 'hybrid_fixed --chunk --chunk-size 400',
      'sparse', 'sparse --chunk', 'sparse --chunk --chunk-size 1600', 'sparse --chunk --chunk-size 400',
    ]);
    expect(new Set(t.trials.map((x: { configHash: string }) => x.configHash)).size).toBe(8);
    // Each chunking built once (three), whatever the number of trials on it.
    expect(r.err.match(/built again: \d+ chunks, english analyzer/g)).toHaveLength(3);
    // The analyzer: plain is BM25 built again on the same documents.
    const plain = await captureCommand(tuneCommand, ['--data', small, '--rebuild', '--modes', 'sparse', '--space', 'chunk=false', '--space', 'analyzer=plain', '--space', 'k1=0.9', '--space', 'b=0.4', '--budget', '2', '--json']);
    expect(plain.error).toBeNull();
    expect(lastJson(plain.out).trials.map((x: { label: string }) => x.label)).toEqual(['sparse', 'sparse --analyzer plain']);
    expect(plain.err).toMatch(/built again: \d+ documents, plain analyzer/);
    // --kb keeps its chunking: --rebuild is refused there.
    expect((await captureCommand(tuneCommand, ['--kb', small, '--rebuild'])).error?.message).toMatch(/--rebuild builds from --data/);
  });

  test('a rerank mode: the rerank depth (fusion_top_k) is a dimension, the cross-encoder of --models-dir reranks', async () => {
    const models = ['--models-dir', join(import.meta.dirname, '../fixtures/models'), '--embedder', 'rag-lab/tiny-embedder', '--reranker', 'rag-lab/tiny-cross-encoder', '--no-cache'];
    const r = await captureCommand(tuneCommand, ['--data', small, ...models, '--modes', 'hybrid_fixed_rerank', '--mode', 'hybrid_fixed_rerank',
      '--candidate-k', '20', '--space', 'k1=0.9', '--space', 'b=0.4', '--space', 'alpha=0.5', '--space', 'candidate-k=20', '--space', 'fusion-top-k=10', '--space', 'index=exact', '--budget', '2', '--json']);
    expect(r.error).toBeNull();
    const t = lastJson(r.out);
    expect(t.identity.reranker).toMatch(/tiny-cross-encoder/);
    expect(t.trials.map((x: { label: string }) => x.label)).toEqual(['hybrid_fixed_rerank', 'hybrid_fixed_rerank --fusion-top-k 10']);
    expect(new Set(t.trials.map((x: { configHash: string }) => x.configHash)).size).toBe(2);
  });

  test('the vector index kind: each kind built once over the same vectors; a trial of a kind is eval-beir --index of it', async () => {
    const r = await captureCommand(tuneCommand, ['--data', small, '--train-embedder', '--modes', 'dense', '--space', 'index=exact,int8,hnsw', '--budget', '3', '--json']);
    expect(r.error).toBeNull();
    const t = lastJson(r.out);
    // the kind auto picks here (exact) is the current settings' own: no third label for it
    expect(t.space.dimensions.find((d: { key: string }) => d.key === 'index').values).toEqual(['auto', 'int8', 'hnsw']);
    expect(t.trials.map((x: { label: string }) => x.label).sort()).toEqual(['dense', 'dense --index hnsw', 'dense --index int8']);
    expect(t.notes.filter((n: string) => /vector index over \d+ vectors built once/.test(n))).toHaveLength(2);
    const byLabel = (l: string) => t.trials.find((x: { label: string }) => x.label === l);
    // a small corpus: the graph finds what the exact scan finds (scores re-scored exactly): the same figure on the same queries
    expect(byLabel('dense --index hnsw').queries).toBe(byLabel('dense').queries);
    expect(byLabel('dense --index hnsw').score).toBe(byLabel('dense').score);
    const report = join(tmp, 'hnsw.json');
    const e = await captureCommand(evalBeirCommand, ['--data', small, '--train-embedder', '--no-predictors', '--modes', 'dense', '--index', 'hnsw', '--report-out', report]);
    expect(e.error).toBeNull();
    const parsed = parseReportText(readFileSync(report, 'utf8'));
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.report.configHash).toBe(byLabel('dense --index hnsw').configHash);
  });

  test('--embedders: another embedder joins the space in the dense modes; a trial names it; eval-beir --config runs it', async () => {
    const models = ['--models-dir', join(import.meta.dirname, '../fixtures/models'), '--no-cache'];
    const r = await captureCommand(tuneCommand, ['--data', small, '--train-embedder', ...models, '--embedders', 'rag-lab/tiny-embedder', '--modes', 'sparse,dense',
      '--space', 'k1=0.9', '--space', 'b=0.4', '--space', 'index=exact', '--budget', '5', '--json', '--report-out', join(tmp, 'embedders-tune.json')]);
    expect(r.error).toBeNull();
    const t = lastJson(r.out);
    expect(t.space.size).toBe(3);
    // The report names every embedder that ran: the trained one and the other.
    const tuned = parseReportText(readFileSync(join(tmp, 'embedders-tune.json'), 'utf8'));
    if (!tuned.ok) throw new Error(tuned.message);
    expect(tuned.report.environment.models.map((x) => x.id)).toEqual([expect.stringMatching(/^corpus\//), 'rag-lab/tiny-embedder']);
    expect(t.trials.map((x: { label: string }) => x.label)).toEqual(['sparse', 'dense', 'dense --embedder rag-lab/tiny-embedder']);
    const [, own, tiny] = t.trials as Array<{ configHash: string; embedder?: string; score: number }>;
    expect(own!.embedder).toBeUndefined();
    expect(tiny!.embedder).toBe('rag-lab/tiny-embedder');
    expect(tiny!.configHash).not.toBe(own!.configHash);
    expect(tiny!.score).not.toBe(own!.score); // its own vectors and query embeddings
    expect(t.notes).toContain('other embedders in the space (dense): rag-lab/tiny-embedder');
    // The trial is eval-beir with that embedder: a settings file naming it gives the same config hash.
    const cfg = join(tmp, 'tiny.json'), report = join(tmp, 'tiny-report.json');
    writeFileSync(cfg, JSON.stringify({ mode: 'dense', settings: {}, embedder: 'rag-lab/tiny-embedder' }));
    const e = await captureCommand(evalBeirCommand, ['--data', small, ...models, '--no-predictors', '--config', cfg, '--report-out', report]);
    expect(e.error).toBeNull();
    const parsed = parseReportText(readFileSync(report, 'utf8'));
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.report.configHash).toBe(tiny!.configHash);
    // An embedder that does not load is one clear line.
    expect((await captureCommand(tuneCommand, ['--data', small, ...models, '--embedders', 'rag-lab/none', '--modes', 'dense', '--budget', '2'])).error?.message).toMatch(/--embedders rag-lab\/none: /);
  });

  test('--space FILE: the dimensions narrowed by a JSON object, checked as the K=V forms are', async () => {
    const file = join(tmp, 'space.json');
    writeFileSync(file, JSON.stringify({ k1: [0.9, 1.2], b: [0.4], 'candidate-k': ['auto'] }));
    const t = lastJson((await captureCommand(tuneCommand, ['--data', small, '--modes', 'sparse', '--space', file, '--budget', '10', '--json'])).out);
    expect(t.space.size).toBe(2);
    expect(t.trials.map((x: { label: string }) => x.label)).toEqual(['sparse', 'sparse --k1 1.2']);
    writeFileSync(file, JSON.stringify({ alpha: [2] }));
    expect((await captureCommand(tuneCommand, ['--data', small, '--space', file])).error?.message).toMatch(/--space alpha: "2" is not a value of alpha/);
    writeFileSync(file, '[1, 2]');
    expect((await captureCommand(tuneCommand, ['--data', small, '--space', file])).error?.message).toMatch(/give an object of dimensions and their values/);
  });

  test('--minutes: as many trials as fit the time at the current settings\' latency, at most --budget', async () => {
    const base = ['--data', small, '--modes', 'sparse', '--json'];
    const tiny = lastJson((await captureCommand(tuneCommand, [...base, '--minutes', '0.000001'])).out);
    expect(tiny.trials).toHaveLength(1);
    expect(tiny.notes.find((n: string) => n.startsWith('a budget of 0.000001 min'))).toMatch(/: 1 trials \(the current settings took [\d.]+ ms a query on 20 tuning queries/);
    const reportFile = join(tmp, 'tune-report.json');
    const capped = lastJson((await captureCommand(tuneCommand, [...base, '--minutes', '30', '--budget', '5', '--report-out', reportFile])).out);
    expect(capped.trials).toHaveLength(5);
    // --report-out: the tune as a report of kind tune, a row per distinct trial, its budget and the data it ran on.
    const parsed = parseReportText(readFileSync(reportFile, 'utf8'));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.report).toMatchObject({ kind: 'tune', evaluator: 'ndcg@10', data: { dataset: 'scifact-subset' }, config: { budget: 5, minutes: 30, modes: ['sparse'] } });
      expect(new Set(parsed.report.rows.map((r) => r.key)).size).toBe(new Set(capped.trials.map((t: { mode: string; configHash: string }) => `${t.mode}:${t.configHash}`)).size);
      expect(parsed.report.rows.filter((r) => r.status === 'winner')).toHaveLength(1);
    }
    expect((await captureCommand(tuneCommand, [...base, '--minutes', '0'])).error?.message).toMatch(/--minutes must be a number of minutes above 0/);
  });

  test('--testset: questions written by hand as CSV, judged by document id or answer text; what is left out is noted', async () => {
    const lines = readFileSync(join(small, 'corpus.jsonl'), 'utf8').trim().split('\n').slice(0, 12).map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
    const csv = ['question,doc_id,answer', ...lines.map((d, i) => (i % 2 ? `"${d.title.replace(/"/g, '')}",${d._id},` : `"${d.title.replace(/"/g, '')}",,"${d.text.split(' ').slice(2, 8).join(' ').replace(/"/g, '')}"`)), 'a question of nothing,no-such-id,'].join('\n');
    const file = join(tmp, 'mine.csv');
    writeFileSync(file, csv);
    const r = await captureCommand(tuneCommand, ['--data', small, '--testset', file, '--modes', 'sparse', '--budget', '4', '--json']);
    expect(r.error).toBeNull();
    const t = lastJson(r.out);
    expect(t.split.tuning + t.split.heldOut).toBe(12);
    expect(t.notes).toContain('--testset: 1 row judged nothing in the knowledge base (unknown ids, or an answer no item holds): left out');
    const bad = join(tmp, 'bad.jsonl');
    writeFileSync(bad, '{"question": "x", "doc_id": \n');
    expect((await captureCommand(tuneCommand, ['--data', small, '--testset', bad])).error?.message).toMatch(/--testset .*bad\.jsonl: line 1 is not JSON/);
  });

  test.each([
    [['--budget', '0'], /--budget must be a whole number of trials, got "0"/],
    [['--budget', '1000000000'], /--budget must be a whole number/],
    [['--held-out', '1'], /--held-out must be a fraction between 0 and 1/],
    [['--metric', 'bleu'], /--metric must be one of ndcg@10/],
    [['--mode', 'fastest'], /--mode: unknown mode "fastest"/],
    [['--space', 'alpha=2'], /--space alpha: "2" is not a value of alpha/],
    [['--space', 'depth=10'], /--space depth=10: give a dimension and its values/],
    [['--modes', 'dense'], /no mode can run: the space is empty/],
  ])('%s: one clear line', async (extra, message) => {
    const r = await captureCommand(tuneCommand, ['--data', small, ...extra]);
    expect(r.error?.message).toMatch(message);
  });
});
