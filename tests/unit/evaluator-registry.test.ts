/**
 * EVALUATORS is the one place an evaluator is told apart: every entry, and a fixture entry added here, reaches the
 * pickers, the CLI's --evaluator help and checks, the models a run loads, the dependencies built for it and the
 * session's scoring, through what the entry declares (api, repeatable, usesNli, usesEmbedder), never by its id.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseRagbenchJsonl } from '../../src/lib/data/ragbench.ts';
import { MemoryResultStore } from '../../src/lib/eval/ragbench-run/resumable-rows.ts';
import { buildEvaluatorDeps } from '../../src/lib/eval/score/evaluator-deps.ts';
import { EVALUATOR_IDS, EVALUATORS, evaluatorsWith, isEvaluatorId, type EvaluatorDef, type EvaluatorId } from '../../src/lib/eval/score/evaluators.ts';
import { ragbenchModelNeeds } from '../../src/lib/eval/score/run-models.ts';
import { runValidateSession } from '../../src/lib/eval/ragbench-run/ragbench-loops.ts';
import type { NliTraceModels } from '../../src/lib/eval/metrics/nli-trace.ts';
import type { ChatProvider } from '../../src/lib/llm/types.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const emanual = parseRagbenchJsonl(readFileSync(join(DATA, 'emanual.jsonl'), 'utf8'), 'emanual').rows;

const FIXTURE = 'fixture' as EvaluatorId;
const SCORES = { relevance: 0.25, utilization: 0.5, adherence: 1, completeness: 0.75 };
let built = 0;
/** A judge-free evaluator that needs the NLI models and whose rows all score SCORES. */
const fixture: EvaluatorDef = {
  id: FIXTURE, label: 'fixture evaluator', choice: 'Fixture (test)', help: 'a test fixture',
  api: false, repeatable: false, usesNli: true, usesEmbedder: false,
  hashSettings: () => ({}),
  build: () => { built++; return { row: () => ({ ...SCORES }), pipeline: () => ({ ...SCORES }) }; },
};

const judge: ChatProvider = { id: 'openai', chat: async () => { throw new Error('unused'); }, stream: async () => { throw new Error('unused'); } };
const nliModels: NliTraceModels = { nli: { spec: { id: 'n', dtype: 'q8', device: 'cpu' }, predict: async () => ({ entailment: 1, neutral: 0, contradiction: 0 }) }, reranker: null };
const sources = { judge, models: { nliModels: async () => nliModels, embedder: async () => null } };

beforeAll(() => {
  (EVALUATORS as Record<string, EvaluatorDef>)[FIXTURE] = fixture;
  (EVALUATOR_IDS as unknown as string[]).push(FIXTURE);
});
afterAll(() => {
  delete (EVALUATORS as Record<string, EvaluatorDef>)[FIXTURE];
  (EVALUATOR_IDS as unknown as string[]).pop();
});

describe('the evaluator registry', () => {
  it('the pickers list every entry in the registry\'s order, with its label and whether it asks for a judge', async () => {
    // Imported after the fixture was added: the choices are derived when the module loads.
    const { EVALUATOR_CHOICES, evaluatorConfig, isEvaluatorChoice } = await import('../../src/ui/bench/bench-evaluators.ts');
    expect(Object.keys(EVALUATOR_CHOICES)).toEqual(Object.keys(EVALUATORS));
    expect(Object.keys(EVALUATOR_CHOICES)).toContain(FIXTURE);
    for (const id of EVALUATOR_IDS) {
      expect(EVALUATOR_CHOICES[id], id).toEqual({ label: EVALUATORS[id].choice, judge: EVALUATORS[id].api });
      expect(isEvaluatorChoice(id)).toBe(true);
    }
    const ref = { id: 'm', dtype: 'q8' };
    const cfg = (evaluator: EvaluatorId) => evaluatorConfig({ mode: 'validate', evaluator, judge: { provider: 'groq', baseUrl: null, model: 'j', repeats: 1, rpm: null, tpm: null }, loaded: [{ task: 'embedder', spec: ref }], nli: ref, crossEncoder: ref });
    for (const id of EVALUATOR_IDS) {
      const c = cfg(id);
      expect(c.nliModels !== null, id).toBe(EVALUATORS[id].usesNli);
      expect(c.judge !== null, id).toBe(EVALUATORS[id].api);
      expect('ragasEmbedder' in c, id).toBe(EVALUATORS[id].usesEmbedder);
    }
  });

  it("the CLI's --evaluator help and checks name every entry; only a repeatable one takes --repeats and --temperature", async () => {
    expect(isEvaluatorId(FIXTURE)).toBe(true);
    expect(evaluatorsWith('repeatable')).toEqual(['llm']);
    const { evalRagbenchCommand } = await import('../../cli/eval-ragbench.ts');
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await evalRagbenchCommand(['--help']);
    // Its help line (from the run's settings schema, wrapped) names every entry with its one line.
    const help = String(log.mock.calls[0]![0]).replace(/\s+/g, ' ');
    for (const id of EVALUATOR_IDS) expect(help).toContain(`${id} (${EVALUATORS[id].help})`);
    expect(help).toContain(`${EVALUATOR_IDS.join(' | ')} (default lexical)`);
    log.mockRestore();
    await expect(evalRagbenchCommand(['--data', '/nonexistent', '--evaluator', FIXTURE, '--repeats', '2'])).rejects.toThrow('--repeats needs --evaluator llm');
    await expect(evalRagbenchCommand(['--data', '/nonexistent', '--evaluator', 'magic'])).rejects.toThrow(`--evaluator must be one of ${EVALUATOR_IDS.join(', ')}`);
  });

  it('each entry gets the models and judge it declares, and a run loads the NLI models only for one that uses them', async () => {
    for (const id of EVALUATOR_IDS) {
      const d = EVALUATORS[id];
      const deps = await buildEvaluatorDeps(id, sources);
      expect('nli' in deps, id).toBe(d.usesNli);
      expect('judge' in deps, id).toBe(d.api);
      expect('embedder' in deps, id).toBe(d.usesEmbedder);
      const need = ragbenchModelNeeds(id, null);
      expect(need.nli, id).toBe(d.usesNli);
      expect(need.reranker, id).toBe(d.usesNli);
    }
    await expect(buildEvaluatorDeps(FIXTURE, {})).rejects.toThrow(/needs the NLI model/);
  });

  it('a validate session scores with the entry it names (the fixture\'s own row evaluator)', async () => {
    built = 0;
    const s = await runValidateSession({
      evaluator: FIXTURE, settings: {}, deps: { nli: nliModels }, subsets: [{ subset: 'emanual', rows: emanual }],
      store: new MemoryResultStore(), n: 5, seed: 1, bootstrap: 0,
      report: { config: { mode: 'validate' }, environment: { runtime: 'node', agent: 'node test', models: [] }, source: 'local' },
    });
    expect(built).toBe(1);
    expect(s.runs[0]!.validation.n).toBe(5);
    expect(s.judge).toBeNull();
    expect(s.report!.evaluator).toBe(FIXTURE);
    for (const row of s.report!.rows) expect(row.scores).toMatchObject(SCORES);
  });
});
