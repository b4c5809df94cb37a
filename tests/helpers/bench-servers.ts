/**
 * The local servers the Benchmark tab's e2e file reads RAGBench and a judge from: a dataset Hub serving parquet files
 * written now from ../shared (emanual in the repository layout, hotpotqa as the Hub's parquet conversion), a dataset
 * viewer over the same JSONL rows, and an OpenAI-compatible judge whose every call answers, after a delay, with the
 * same valid verdict.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { startLlmServer, type LlmServer } from './llm-server.ts';
import { serveViewer, type ViewerServer } from './viewer-server.ts';
import { serveDatasetHub, type DatasetHubServer } from './dataset-hub-server.ts';
import { ragbenchParquet, readJsonlRows } from './ragbench-parquet.ts';

/** RAGBench's test splits (../shared/data, or RAG_LAB_RAGBENCH). */
export const RAGBENCH_DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');

export interface BenchServers {
  viewer: ViewerServer;
  llm: LlmServer;
  parquetHub: DatasetHubServer;
  close(): Promise<void>;
}

export async function startBenchServers(): Promise<BenchServers> {
  const parquetDir = mkdtempSync(join(tmpdir(), 'rag-lab-e2e-parquet-'));
  for (const [path, subset] of [['main/emanual/test-00000-of-00001.parquet', 'emanual'], ['refs/convert/parquet/hotpotqa/test/0000.parquet', 'hotpotqa']] as const) {
    mkdirSync(dirname(join(parquetDir, path)), { recursive: true });
    writeFileSync(join(parquetDir, path), new Uint8Array(ragbenchParquet(readJsonlRows(RAGBENCH_DATA, subset))));
  }
  const parquetHub = await serveDatasetHub(parquetDir);
  const viewer = await serveViewer(RAGBENCH_DATA);
  const llm = await startLlmServer();
  llm.fallback = () => ({
    delayMs: 250,
    json: {
      id: 'x', object: 'chat.completion', created: 1, model: 'judge',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify({
        overall_supported: true, all_relevant_sentence_keys: ['0a', '0b'], all_utilized_sentence_keys: ['0a'], sentence_support_information: [],
      }) } }],
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    },
  });
  return {
    viewer, llm, parquetHub,
    close: async () => {
      await Promise.all([viewer.close(), llm.close(), parquetHub.close()]);
      rmSync(parquetDir, { recursive: true, force: true });
    },
  };
}
