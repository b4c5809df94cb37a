/**
 * `rag-lab eval-beir` and the corpus a corpus-trained embedder belongs to (issue 32), on small generated BEIR folders
 * (tests/helpers/topic-corpus.ts): `--train-embedder` trains one on the dataset in-process and the report records it,
 * its training corpus and hash; a model of `--models-dir` written by `train-embedder` is recorded with what its
 * config.json says it was trained on, "this dataset" exactly when the corpus hashes are equal, and another corpus's
 * model says so in the report's notes.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evalBeirCommand } from '../../cli/eval-beir.ts';
import { trainEmbedderCommand } from '../../cli/train-embedder.ts';
import { parseReportText, type Report } from '../../src/lib/reports/format.ts';
import { TOPICS, topicCorpus } from '../helpers/topic-corpus.ts';

let root: string;
const models = () => join(root, 'models');

/** A BEIR folder `name` of the topic corpus drawn with `seed` (another seed: another corpus). */
function topicFolder(name: string, seed: number): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const docs = topicCorpus(15, seed);
  writeFileSync(join(dir, 'corpus.jsonl'), docs.map((d) => JSON.stringify({ _id: d.id, title: d.title, text: d.text })).join('\n') + '\n');
  const queries = Object.entries(TOPICS).map(([topic, words], i) => ({ _id: `q${i}`, topic, text: `${words[0]} ${words[1]}` }));
  writeFileSync(join(dir, 'queries.jsonl'), queries.map((q) => JSON.stringify({ _id: q._id, text: q.text })).join('\n') + '\n');
  const qrels = queries.flatMap((q) => docs.filter((d) => d.topic === q.topic).map((d) => `${q._id}\t${d.id}\t1`));
  writeFileSync(join(dir, 'qrels/test.tsv'), ['query-id\tcorpus-id\tscore', ...qrels].join('\n') + '\n');
  return dir;
}

/** Runs a command in-process, its output silenced. */
async function quiet(run: () => Promise<void>): Promise<void> {
  const spy = vi.spyOn(console, 'log').mockImplementation(() => {});
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try { await run(); } finally { spy.mockRestore(); err.mockRestore(); }
}

async function evalReport(args: string[]): Promise<Report> {
  const out = join(root, `r-${Math.random().toString(36).slice(2)}.json`);
  await quiet(() => evalBeirCommand([...args, '--modes', 'sparse,dense', '--no-predictors', '--no-cache', '--report-out', out]));
  const parsed = parseReportText(readFileSync(out, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.report;
}

let a: string, b: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rag-lab-eval-embedder-'));
  a = topicFolder('topics-a', 2);
  b = topicFolder('topics-b', 3);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('eval-beir and the corpus of its embedder', () => {
  it('--train-embedder trains one on the dataset and the report records it, its corpus and hash', async () => {
    const r = await evalReport(['--data', a, '--train-embedder']);
    const e = r.environment.models.find((m) => m.task === 'embedder')!;
    expect(e).toMatchObject({ id: 'corpus/bench-topics-a-lsi256', trainedOn: 'topics-a', thisDataset: true });
    expect(e.corpusSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.config['embedder']).toBe('corpus/bench-topics-a-lsi256@fp32');
    expect(r.config['embedderTrainedOn']).toEqual({ title: 'topics-a', corpusSha256: e.corpusSha256, thisDataset: true });
    expect(r.summary.extra['skipped_modes']).toEqual({});
    await expect(evalBeirCommand(['--data', a, '--train-embedder', '--embedder', 'x/y'])).rejects.toThrow('--train-embedder trains the embedder on --data: give it without --kb and --embedder');
  });

  it('a model written by train-embedder is this dataset\'s on its own data, another corpus\'s elsewhere, and the report says which', async () => {
    await quiet(() => trainEmbedderCommand(['--data', a, '--out', join(models(), 'corpus/topics-a-lsi8'), '--dim', '8']));
    const flags = ['--models-dir', models(), '--embedder', 'corpus/topics-a-lsi8'];
    const own = await evalReport(['--data', a, ...flags]);
    const trainedHash = JSON.parse(readFileSync(join(models(), 'corpus/topics-a-lsi8/config.json'), 'utf8')).corpus_embedder.corpus_sha256;
    expect(own.environment.models[0]).toMatchObject({ id: 'corpus/topics-a-lsi8', trainedOn: 'BEIR folder topics-a', corpusSha256: trainedHash, thisDataset: true });
    const other = await evalReport(['--data', b, ...flags]);
    expect(other.environment.models[0]).toMatchObject({ id: 'corpus/topics-a-lsi8', trainedOn: 'BEIR folder topics-a', corpusSha256: trainedHash, thisDataset: false });
    expect(other.summary.notes).toContain('the dense modes use corpus/topics-a-lsi8, trained on BEIR folder topics-a, another corpus than this dataset');
  });
});
