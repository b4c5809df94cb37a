/**
 * A RAGBench subset opened as the search session's knowledge base: its rows from the file the Benchmark tab
 * remembered (else the Hub loader), every question's documents pooled as the pipeline benchmark pools them, its
 * questions with their gold labels in KbInfo, and the vectors' cache key the pipeline benchmark uses.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRagbenchKb, ragbenchKbVectorKey } from '../../src/lib/data/ragbench-kb.ts';
import { parseRagbenchFile } from '../../src/lib/data/ragbench-files.ts';
import type { loadRagbenchSubset } from '../../src/lib/data/ragbench-hub.ts';
import { openKbFrom, type KbOpenDeps } from '../../src/lib/rag/kb-open.ts';
import { openRagbenchKb } from '../../src/lib/rag/kb-open-ragbench.ts';
import type { LoadProgress } from '../../src/lib/rag/kb-contract.ts';
import { MemoryRagbenchFileStore } from '../../src/lib/store/ragbench-file-store.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const bytes = readFileSync(join(DATA, 'emanual.jsonl'));
const request = { kind: 'ragbench' as const, subset: 'emanual', hubUrl: 'http://127.0.0.1:9', viewerUrl: 'http://127.0.0.1:9' };

/** A Hub loader that must not be called, or that answers with `rows`' subset. */
const noHub: typeof loadRagbenchSubset = async () => { throw new Error('the Hub was asked'); };

describe('a RAGBench subset as a knowledge base', () => {
  it('from the remembered file: the pooled documents, the questions with gold, the pipeline benchmark\'s vector key', async () => {
    const files = new MemoryRagbenchFileStore();
    await files.remember('emanual', 'emanual.jsonl', new Uint8Array(bytes));
    const stages = new Set<string>();
    const open = await openRagbenchKb({ files: () => files, loadSubset: noHub }, request, (p: LoadProgress) => stages.add(p.stage));
    const rows = (await parseRagbenchFile('emanual.jsonl', bytes)).rows;
    const same = buildRagbenchKb(rows, 'emanual');
    expect(open.kb.size).toBe(same.kb.size);
    expect(open.info.documents).toBe(same.docs.length);
    expect(Array.from({ length: open.kb.size }, (_, i) => open.kb.itemId(i))).toEqual(Array.from({ length: same.kb.size }, (_, i) => same.kb.itemId(i)));
    expect(await open.key()).toBe(await ragbenchKbVectorKey(same));
    expect(open.info.corpusId).toBe('ragbench:emanual');
    expect(open.info.descriptor).toMatchObject({ id: 'ragbench:emanual', title: 'RAGBench emanual', source: { kind: 'ragbench', subset: 'emanual' }, fields: [] });
    expect(open.info.descriptor.description).toContain('read from the file emanual.jsonl picked in the Benchmark tab');
    const gold = open.info.goldQuestions!;
    expect(gold.length).toBe(new Set(rows.map((r) => r.question.trim())).size);
    const first = rows[0]!;
    expect(gold[0]).toEqual({
      subset: 'emanual', question: first.question.trim(), response: first.response, relevance: first.relevance_score,
      utilization: first.utilization_score, completeness: first.completeness_score, adherence: first.adherence_score,
    });
    expect(open.info.descriptor.examples.map((e) => e.query)).toEqual(gold.slice(0, 3).map((g) => g.question));
    expect(stages.has('chunk') || stages.has('index')).toBe(true);
  });

  it('without a remembered file: the Hub loader at the request\'s addresses, its row progress passed on', async () => {
    const rows = (await parseRagbenchFile('emanual.jsonl', bytes)).rows.slice(0, 4);
    const asked: Array<{ subset: string; hubUrl?: string; viewerUrl?: string }> = [];
    const hub: typeof loadRagbenchSubset = async (subset, o = {}) => {
      asked.push({ subset, hubUrl: o.hubUrl, viewerUrl: o.viewerUrl });
      o.onProgress?.(4, 4);
      return { subset, rows, skipped: [], total: 4, source: 'parquet', notes: [] };
    };
    const progress: LoadProgress[] = [];
    const deps = { artifacts: {} as KbOpenDeps['artifacts'], localKbs: () => { throw new Error('no local'); }, ragbench: { files: () => new MemoryRagbenchFileStore(), loadSubset: hub } };
    const open = await openKbFrom(deps, request, (p) => progress.push(p));
    expect(asked).toEqual([{ subset: 'emanual', hubUrl: request.hubUrl, viewerUrl: request.viewerUrl }]);
    expect(progress).toContainEqual({ stage: 'rows', done: 4, total: 4 });
    expect(open.info.goldQuestions!.length).toBe(new Set(rows.map((r) => r.question.trim())).size);
    expect(open.info.descriptor.description).toContain('read from the Hub');
  });

  it('refuses a name that is not a subset name, and a subset with no rows, saying which', async () => {
    const deps = { files: () => new MemoryRagbenchFileStore(), loadSubset: noHub };
    await expect(openRagbenchKb(deps, { ...request, subset: '../x' }, () => {})).rejects.toThrow(/"\.\.\/x" is not a RAGBench subset name/);
    const empty: typeof loadRagbenchSubset = async (subset) => ({ subset, rows: [], skipped: [], total: 0, source: 'viewer', notes: [] });
    await expect(openRagbenchKb({ ...deps, loadSubset: empty }, request, () => {})).rejects.toThrow(/RAGBench emanual: no rows were read from the dataset viewer/);
    // The Hub's failure is the loader's message, unchanged.
    await expect(openRagbenchKb(deps, request, () => {})).rejects.toThrow(/the Hub was asked/);
  });
});
