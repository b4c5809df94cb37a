/**
 * The local models of a run as its settings and its report name them: a model as `id@dtype` (the name its cached
 * scores and vectors are filed under, part of a config hash), as the report's environment lists it, which models a
 * RAGBench run needs (the pipeline's embedder and cross-encoder, the NLI evaluator's NLI model and cross-encoder),
 * and the models named by id (default: the registry's) and dtype, as the CLI's flags give them. The tab names the
 * models its models worker holds loaded with the same functions.
 */
import { DEFAULT_MODELS } from '../../models/registry.ts';
import type { RagConfig } from '../../rag/config.ts';
import { EVALUATORS, type EvaluatorId } from './evaluators.ts';
import { pipelineModelNeeds } from '../core/pipeline-settings.ts';

/** A model as the report's environment lists it; a corpus-trained embedder with what it was trained on. */
export interface RunModelInfo { task: string; id: string; dtype: string; device: string; trainedOn?: string; corpusSha256?: string | null; thisDataset?: boolean }

/** The embedder's entry with the corpus it was trained on (`corpus`: null for a pretrained one, left as is). */
export const withCorpus = (info: RunModelInfo, corpus: { title: string; corpusHash: string | null; thisDataset: boolean } | null): RunModelInfo =>
  (corpus ? { ...info, trainedOn: corpus.title.slice(0, 300), corpusSha256: corpus.corpusHash, thisDataset: corpus.thisDataset } : info);

/** A model's name in settings, cache keys and config hashes: `id@dtype`. */
export const modelKey = (spec: { id: string; dtype: string }): string => `${spec.id}@${spec.dtype}`;

/** A model of task `task` as the report's environment lists it. */
export const runModelInfo = (task: string, spec: { id: string; dtype: string; device: string }): RunModelInfo =>
  ({ task, id: spec.id, dtype: spec.dtype, device: spec.device });

/** The NLI evaluator's models as its settings name them (its cached scores are filed under these). */
export const nliModelKeys = (nli: { id: string; dtype: string }, reranker: { id: string; dtype: string } | null): { nli: string; reranker: string | null } =>
  ({ nli: modelKey(nli), reranker: reranker ? modelKey(reranker) : null });

/** Which local models a run uses, by task (`reranker`: the cross-encoder). */
export interface ModelNeeds { embedder: boolean; reranker: boolean; nli: boolean }

/**
 * The models a RAGBench run needs: in pipeline mode (`rag` given) what its retrieval searches with, and for the NLI
 * evaluator its NLI model and the cross-encoder that scores relevance. `search`: the pipeline's retrieval uses one.
 */
export function ragbenchModelNeeds(evaluator: EvaluatorId, rag: RagConfig | null): ModelNeeds & { search: boolean } {
  const pipeline = rag ? pipelineModelNeeds(rag) : { dense: false, reranker: false };
  const nli = EVALUATORS[evaluator].usesNli;
  return { embedder: pipeline.dense, reranker: pipeline.reranker || nli, nli, search: pipeline.dense || pipeline.reranker };
}

/** The ids of a run's models (absent: the registry's default) and their dtype. */
export interface ModelIds { embedder?: string | undefined; reranker?: string | undefined; nli?: string | undefined; dtype: string }

/** Models named by id and dtype: each needed one's `id@dtype` (null: not needed) and the report's list of them. */
export interface NamedModels { embedder: string | null; reranker: string | null; nli: string | null; loaded: RunModelInfo[] }

/** The models `need` names by id (default: the registry's) and dtype, listed in the order embedder, cross-encoder, NLI. */
export function namedRunModels(ids: ModelIds, need: Partial<ModelNeeds>, device: string): NamedModels {
  const tasks = [
    ['embedder', 'embedder', ids.embedder ?? DEFAULT_MODELS.embedder],
    ['reranker', 'cross-encoder', ids.reranker ?? DEFAULT_MODELS['cross-encoder']],
    ['nli', 'nli', ids.nli ?? DEFAULT_MODELS.nli],
  ] as const;
  const out: NamedModels = { embedder: null, reranker: null, nli: null, loaded: [] };
  for (const [slot, task, id] of tasks) {
    if (!need[slot]) continue;
    out[slot] = modelKey({ id, dtype: ids.dtype });
    out.loaded.push(runModelInfo(task, { id, dtype: ids.dtype, device }));
  }
  return out;
}
