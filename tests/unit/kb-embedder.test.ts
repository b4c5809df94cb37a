/**
 * A corpus-trained model belongs to what it was trained on (issue 32): which embedder a knowledge base uses is decided
 * by its corpus hash (models/kb-embedder.ts), never by "the embedder" of Settings being trained on another corpus;
 * a foreign model is used only when picked for this knowledge base, and then says what it was trained on. The mode
 * table says why dense is off; a dense link falls back like a chip; deleting a knowledge base unselects its models.
 */
import { describe, expect, it } from 'vitest';
import { chooseEmbedder, foreignLoadedNote, ownModels, PICK_NONE, PICK_PRETRAINED, type TrainedRef } from '../../src/lib/models/kb-embedder.ts';
import { modeTable } from '../../src/lib/models/readiness.ts';
import { linkFallback } from '../../src/ui/search/example-chips.ts';
import { DEFAULT_SETTINGS, parseSettings, withKbPick, withoutModels } from '../../src/ui/app/settings.ts';
import { choiceText, enableLabel } from '../../src/ui/models/corpus-embedder-view.ts';
import type { ModelSpec } from '../../src/lib/models/types.ts';

const SOTU = 'a'.repeat(64);
const HOLDOUT = 'b'.repeat(64);
const MINILM: ModelSpec = { id: 'Xenova/all-MiniLM-L6-v2', dtype: 'q8', device: 'wasm' };
const holdout: TrainedRef = { id: 'corpus/holdout-manuals-lsi256', kbTitle: 'Holdout manuals', corpusHash: HOLDOUT, created: '2026-12-01T00:00:00.000Z' };
const sotuOld: TrainedRef = { id: 'corpus/sotu-lsi64', kbTitle: 'State of the Union', corpusHash: SOTU, created: '2026-12-01T00:00:00.000Z' };
const sotuNew: TrainedRef = { id: 'corpus/sotu-lsi256', kbTitle: 'State of the Union', corpusHash: SOTU, created: '2026-12-02T00:00:00.000Z' };
const legacy: TrainedRef = { id: 'corpus/sotu-lsi128', kbTitle: 'State of the Union', created: '2026-11-01T00:00:00.000Z' };
const q8 = (id: string) => ({ id, dtype: 'q8', device: 'wasm' });

describe('which embedder a knowledge base uses', () => {
  it('never gives another corpus its model: the Settings pretrained one, or none when Settings name a foreign trained one', () => {
    // Training on "Holdout manuals" used to put its model in Settings for every knowledge base.
    expect(chooseEmbedder({ kbHash: SOTU, trained: [holdout], settingsEmbedder: MINILM, pick: null }))
      .toEqual({ spec: MINILM, source: 'pretrained', trainedOn: null, foreign: false, note: null });
    const c = chooseEmbedder({ kbHash: SOTU, trained: [holdout], settingsEmbedder: q8(holdout.id) as ModelSpec, pick: null });
    expect(c.spec).toBeNull();
    expect(c.source).toBe('none');
    expect(c.note).toBe('corpus/holdout-manuals-lsi256 (Settings) is corpus-trained on Holdout manuals, not on this knowledge base, so dense search is off here: '
      + 'train a corpus embedder for this knowledge base, choose a pretrained model under Settings → Models, or pick that model for this knowledge base explicitly.');
  });

  it('selects the knowledge base’s own trained model by content (the newest of those with its hash), not by name', () => {
    const c = chooseEmbedder({ kbHash: SOTU, trained: [holdout, sotuOld, sotuNew, legacy], settingsEmbedder: MINILM, pick: null });
    expect(c).toEqual({ spec: q8('corpus/sotu-lsi256'), source: 'own', trainedOn: 'State of the Union', foreign: false, note: null });
    expect(ownModels(SOTU, [holdout, sotuOld, sotuNew, legacy]).map((m) => m.id)).toEqual(['corpus/sotu-lsi256', 'corpus/sotu-lsi64']);
    // A model without a recorded hash is never attached by default, whatever its name; nothing open: none is own.
    expect(chooseEmbedder({ kbHash: SOTU, trained: [legacy], settingsEmbedder: MINILM, pick: null }).source).toBe('pretrained');
    expect(ownModels(null, [sotuNew])).toEqual([]);
  });

  it('uses a pick for this knowledge base: a foreign model says what it was trained on; pretrained or none override its own', () => {
    const foreign = chooseEmbedder({ kbHash: SOTU, trained: [holdout, sotuNew], settingsEmbedder: MINILM, pick: holdout.id });
    expect(foreign).toEqual({ spec: q8(holdout.id), source: 'picked', trainedOn: 'Holdout manuals', foreign: true, note: null });
    expect(chooseEmbedder({ kbHash: SOTU, trained: [sotuNew], settingsEmbedder: MINILM, pick: PICK_PRETRAINED }).spec).toEqual(MINILM);
    const off = chooseEmbedder({ kbHash: SOTU, trained: [sotuNew], settingsEmbedder: MINILM, pick: PICK_NONE });
    expect(off.spec).toBeNull();
    expect(off.note).toMatch(/^You chose BM25 only for this knowledge base/);
    // A pick of a model deleted since: as if none was picked.
    expect(chooseEmbedder({ kbHash: SOTU, trained: [sotuNew], settingsEmbedder: MINILM, pick: 'corpus/gone-lsi256' }).source).toBe('own');
    const named = (id: string) => `${id}, corpus-trained (LSI, 256-d, trained on Holdout manuals)`;
    expect(choiceText(foreign, named)).toBe('corpus/holdout-manuals-lsi256, corpus-trained (LSI, 256-d, trained on Holdout manuals): picked for this knowledge base, although trained on another corpus (Holdout manuals).');
  });

  it('says why a loaded model of another corpus does not answer here, and the dense modes carry it', () => {
    const choice = chooseEmbedder({ kbHash: SOTU, trained: [holdout], settingsEmbedder: MINILM, pick: null });
    const note = foreignLoadedNote(q8(holdout.id) as ModelSpec, choice, [holdout]);
    expect(note).toBe('Dense search is off: corpus/holdout-manuals-lsi256 was trained on Holdout manuals, not on this knowledge base; its embedder is Xenova/all-MiniLM-L6-v2: enable dense search to load it, or pick corpus/holdout-manuals-lsi256 for this knowledge base explicitly.');
    expect(foreignLoadedNote(MINILM, choice, [holdout])).toBeNull();
    expect(foreignLoadedNote(null, choice, [holdout])).toBeNull();
    const table = modeTable(null, [], note);
    expect(table.dense).toEqual({ available: false, reason: note });
    expect(table.sparse.available).toBe(true);
    expect(modeTable(null, []).dense).toEqual({ available: false, reason: 'Dense search needs an embedding model: load one under Settings → Models.' });
  });
});

describe('per-knowledge-base picks in Settings', () => {
  it('keeps picks by corpus hash, bounded, and validated on read', () => {
    const s = withKbPick(withKbPick(DEFAULT_SETTINGS, SOTU, holdout.id), HOLDOUT, PICK_NONE);
    expect(s.kbEmbedders).toEqual({ [SOTU]: holdout.id, [HOLDOUT]: PICK_NONE });
    expect(withKbPick(s, SOTU, null).kbEmbedders).toEqual({ [HOLDOUT]: PICK_NONE });
    expect(parseSettings(JSON.stringify(s)).settings.kbEmbedders).toEqual(s.kbEmbedders);
    const bad = parseSettings(JSON.stringify({ kbEmbedders: { 'not-a-hash': 'x' } }));
    expect(bad.settings.kbEmbedders).toEqual({});
    expect(bad.warning).toMatch(/kbEmbedders/);
  });

  it('leaves no deleted knowledge base’s model selected: its picks go, and Settings’ embedder goes back to the default', () => {
    const s = { ...withKbPick(withKbPick(DEFAULT_SETTINGS, SOTU, holdout.id), HOLDOUT, holdout.id), embedder: { id: holdout.id, dtype: 'q8' as const, device: 'wasm' as const } };
    const after = withoutModels(s, [holdout.id]);
    expect(after.kbEmbedders).toEqual({});
    expect(after.embedder).toEqual(DEFAULT_SETTINGS.embedder);
    expect(withoutModels(DEFAULT_SETTINGS, [holdout.id])).toEqual(DEFAULT_SETTINGS);
  });
});

describe('a dense link with no embedder, and the combined Enable button', () => {
  it('falls back to BM25 with a notice, like an example chip; runs as linked when it can', () => {
    const noDense = modeTable(null, []);
    expect(linkFallback('dense', noDense)).toEqual({ mode: 'sparse', notice: 'This link asks for Dense; it ran with BM25. Dense search needs an embedding model: load one under Settings → Models.' });
    expect(linkFallback('sparse', noDense)).toBeNull();
    const dense = modeTable({ id: 'm', dtype: 'q8', device: 'wasm', dim: 4 }, [{ task: 'embedder', spec: { id: 'm', dtype: 'q8', device: 'wasm' }, dim: 4 }]);
    expect(linkFallback('hybrid_calibrated', dense)).toBeNull();
    expect(linkFallback('hybrid_calibrated_rerank', dense)?.mode).toBe('hybrid_calibrated');
  });

  it('names only what it loads: no cross-encoder once it is loaded or failed', () => {
    expect(enableLabel('m', 'ce')).toBe('Enable dense search and reranking (m; ce)');
    expect(enableLabel('m', null)).toBe('Enable dense search (m)');
    expect(enableLabel(null, 'ce')).toBe('Enable reranking (ce)');
    expect(enableLabel(null, null)).toBeNull();
  });
});
