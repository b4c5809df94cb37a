/**
 * The models session (src/lib/models/model-session.ts) with the tiny fixture models over a local Hub: warm start
 * (a warm-up batch runs after loading, before `load` resolves) and the timings it records (load, warm-up, first
 * call). Counts of forward passes come from the models' own calls, not from timings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configureModels } from '../../src/lib/models/env.ts';
import { ModelSession } from '../../src/lib/models/model-session.ts';
import { WARMUP_PASSAGE, WARMUP_QUERY, warmUp } from '../../src/lib/models/warmup.ts';
import type { ModelSpec, NliClassifier, PairScorer, TextEmbedder } from '../../src/lib/models/types.ts';
import { serveHub, type HubServer } from '../helpers/hub-server.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
const spec = (id: string): ModelSpec => ({ id, dtype: 'fp32', device: 'cpu' });
const EMB = spec('rag-lab/tiny-embedder');
const CE = spec('rag-lab/tiny-cross-encoder');
const NLI = spec('rag-lab/tiny-nli');
/** No corpus-trained models (the fixture ids are Hub models, so the session never asks). */
const noTrained = { meta: async () => null, verify: async (id: string) => { throw new Error(`no trained model ${id}`); } };

let hub: HubServer;
let cacheDir: string;

beforeAll(async () => {
  hub = await serveHub(FIXTURES);
  cacheDir = mkdtempSync(join(tmpdir(), 'rag-lab-model-session-'));
});
afterAll(async () => {
  await hub.close();
  rmSync(cacheDir, { recursive: true, force: true });
});
beforeEach(() => configureModels({ remoteHost: hub.url, cacheDir }));

describe('warmUp', () => {
  it('runs one query through an embedder; the pair scorer and NLI get one query–passage pair', async () => {
    const calls: string[] = [];
    const emb: TextEmbedder = { spec: EMB, dim: 2, embed: async (texts, kind) => { calls.push(`${kind}:${texts.length}`); return new Float32Array(texts.length * 2); } };
    expect(await warmUp('embedder', emb)).toBeGreaterThanOrEqual(0);
    expect(calls).toEqual(['query:1']);
    const ce: PairScorer = { spec: CE, score: async (q, ps) => { calls.push(`rerank:${q === WARMUP_QUERY}:${ps.length}:${ps[0] === WARMUP_PASSAGE}`); return ps.map(() => 0); } };
    await warmUp('cross-encoder', ce);
    const nli: NliClassifier = { spec: NLI, predict: async (p, h) => { calls.push(`nli:${p === WARMUP_PASSAGE}:${h === WARMUP_QUERY}`); return { entailment: 1, neutral: 0, contradiction: 0 }; } };
    await warmUp('nli', nli);
    expect(calls.slice(1)).toEqual(['rerank:true:1:true', 'nli:true:true']);
    // Tiny: one short passage, not a batch of chunk-length ones.
    expect(WARMUP_PASSAGE.length).toBeLessThan(300);
  });
});

describe('ModelSession warm start (fixture models)', () => {
  it('load runs the warm-up before it resolves and records load and warm-up apart; the first call is timed once', async () => {
    const session = new ModelSession(noTrained);
    const info = await session.load('embedder', EMB);
    expect(info.dim).toBe(16);
    expect(info.loadMs).toBeGreaterThan(0);
    expect(info.warmupMs).not.toBeNull();
    expect(info.warmupMs!).toBeGreaterThan(0);
    expect(info.firstCallMs).toBeNull();
    expect(session.loaded()[0]!.firstCallMs).toBeNull();
    const v = await session.embed(['the river'], 'query');
    expect(v.length).toBe(16);
    const first = session.loaded()[0]!.firstCallMs;
    expect(first).not.toBeNull();
    expect(first!).toBeGreaterThan(0);
    await session.embed(['the moon', 'gold and silver'], 'passage');
    expect(session.loaded()[0]!.firstCallMs).toBe(first); // only the first call is recorded
  });

  it('every task warms up; without warm-up (option off) warmupMs is null', async () => {
    const session = new ModelSession(noTrained);
    const ce = await session.load('cross-encoder', CE);
    const nli = await session.load('nli', NLI);
    expect(ce.warmupMs).toBeGreaterThan(0);
    expect(nli.warmupMs).toBeGreaterThan(0);
    expect((await session.rerank('the river', ['the river', 'gold'])).length).toBe(2);
    const byTask = Object.fromEntries(session.loaded().map((m) => [m.task, m.firstCallMs]));
    expect(byTask['cross-encoder']).toBeGreaterThan(0);
    expect(byTask.nli).toBeNull();

    const cold = new ModelSession(noTrained, { warmup: false });
    const info = await cold.load('embedder', EMB);
    expect(info.warmupMs).toBeNull();
    expect(info.loadMs).toBeGreaterThan(0);
  });

  it('loading the same spec again keeps the first record (no second warm-up)', async () => {
    const session = new ModelSession(noTrained);
    const a = await session.load('embedder', EMB);
    await session.embed(['x'], 'query');
    const b = await session.load('embedder', EMB);
    expect(b.warmupMs).toBe(a.warmupMs);
    expect(b.firstCallMs).not.toBeNull();
  });
});
