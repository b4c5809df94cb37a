/**
 * A Hub dataset's layout (hub-dataset.ts): its configs, splits and their parquet shards, from the repo's own files
 * at the revision, else the Hub's conversion (`refs/convert/parquet`), else the Hub's parquet list; and the queries
 * and judgements of a BEIR-layout dataset.
 */
import * as v from 'valibot';
import { encodePath } from '../hub/download.ts';
import { HubDatasetError } from './hub-dataset-types.ts';
import { apiBase, apiJson, listTree, resolveSha, type Ctx, type TreeEntry } from './hub-dataset-http.ts';

const CONVERT_REF = 'refs/convert/parquet';

export interface Shard { path: string; size: number | null; url: string }
export interface SplitFiles { config: string; split: string; shards: Shard[]; partial: boolean }
export interface Layout { dataset: string; sha: string; ref: string; splits: SplitFiles[]; notes: string[] }

/** Config and split of a parquet file's path in a repo, by the Hub's naming conventions; null if not parquet. */
export function splitOfPath(path: string, converted = false): { config: string; split: string; partial: boolean } | null {
  if (!path.endsWith('.parquet')) return null;
  const parts = path.split('/');
  const file = parts.at(-1)!;
  const dirs = parts.slice(0, -1);
  const cfg = (ds: string[]) => {
    const d = ds.at(-1) === 'data' ? ds.slice(0, -1) : ds;
    return d.length === 0 ? 'default' : d.join('/');
  };
  // `{config}/{split}/0000.parquet` (the conversion's layout; `partial-{split}` when only the first 5 GB were converted)
  if ((converted || /^\d+\.parquet$/.test(file)) && dirs.length >= 2 && /^\d+\.parquet$/.test(file)) {
    const raw = dirs.at(-1)!;
    const partial = raw.startsWith('partial-');
    return { config: cfg(dirs.slice(0, -1)), split: partial ? raw.slice('partial-'.length) : raw, partial };
  }
  // `{config}/{split}-00000-of-00003.parquet`, `data/{split}-….parquet`, `{split}-0000x-of-0000n.parquet`
  const sharded = /^(.+?)-\d{5}-of-\d{5}\.parquet$/.exec(file);
  if (sharded) return { config: cfg(dirs), split: sharded[1]!, partial: false };
  // `{config}/{split}.parquet`, `{split}.parquet`
  return { config: cfg(dirs), split: file.slice(0, -'.parquet'.length), partial: false };
}

function groupSplits(ctx: Ctx, dataset: string, sha: string, files: TreeEntry[], converted: boolean): SplitFiles[] {
  const by = new Map<string, SplitFiles>();
  for (const f of files) {
    const s = splitOfPath(f.path, converted);
    if (!s) continue;
    const key = `${s.config}\u0000${s.split}`;
    let g = by.get(key);
    if (!g) by.set(key, (g = { config: s.config, split: s.split, shards: [], partial: s.partial }));
    g.shards.push({ path: f.path, size: f.size, url: `${ctx.hub}/datasets/${encodePath(dataset)}/resolve/${sha}/${encodePath(f.path)}` });
  }
  for (const g of by.values()) g.shards.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
  return [...by.values()];
}

/** The dataset's parquet splits: its own files at the revision, else the Hub's conversion. */
export async function discover(ctx: Ctx, dataset: string, revision: string): Promise<Layout> {
  const sha = (await resolveSha(ctx, dataset, revision, false))!;
  const own = groupSplits(ctx, dataset, sha, await listTree(ctx, dataset, sha), false);
  if (own.length > 0) return { dataset, sha, ref: revision, splits: own, notes: [] };
  const csha = await resolveSha(ctx, dataset, CONVERT_REF, true);
  const conv = csha ? groupSplits(ctx, dataset, csha, await listTree(ctx, dataset, csha), true) : [];
  if (conv.length === 0) {
    const listed = await parquetListing(ctx, dataset);
    if (listed.length > 0) {
      return { dataset, sha, ref: revision, splits: listed, notes: [`${dataset} has no parquet files of its own: read from the Hub's parquet list (${CONVERT_REF}, not pinned to a commit: a conversion made during the build would be read from then on).`] };
    }
    throw new HubDatasetError(`${dataset} has no parquet files (neither its own nor the Hub's conversion, ${CONVERT_REF}): this app reads datasets as parquet; pick another dataset or wait for the Hub to convert it`);
  }
  const notes = [`${dataset} has no parquet files of its own: read from the Hub's conversion (${CONVERT_REF} at ${csha!.slice(0, 7)}).`];
  for (const s of conv) if (s.partial) notes.push(`${s.config}/${s.split}: the Hub converted only the first part of this split (partial).`);
  return { dataset, sha: csha!, ref: CONVERT_REF, splits: conv, notes };
}

const ParquetList = v.record(v.string(), v.record(v.string(), v.array(v.pipe(v.string(), v.url()))));

/** The Hub's list of its conversion, `GET /api/datasets/{ds}/parquet` → `{config: {split: [url]}}` (each URL redirects to the file). */
async function parquetListing(ctx: Ctx, dataset: string): Promise<SplitFiles[]> {
  const r = await apiJson(ctx, `${apiBase(ctx, dataset)}/parquet`, dataset, '', `the parquet list of ${dataset}`, true);
  if (!r) return [];
  const parsed = v.safeParse(ParquetList, r.json);
  if (!parsed.success) return [];
  const out: SplitFiles[] = [];
  for (const [config, splits] of Object.entries(parsed.output)) {
    for (const [split, urls] of Object.entries(splits)) {
      const shards = urls.filter((u) => /^https?:/i.test(u)).map((url, i) => ({ path: `${config}/${split}/${i}.parquet`, size: null, url }));
      if (shards.length > 0) out.push({ config, split, shards, partial: false });
    }
  }
  return out;
}

export function configsOf(layout: Layout): Array<{ config: string; splits: string[] }> {
  const m = new Map<string, string[]>();
  for (const s of layout.splits) {
    const l = m.get(s.config) ?? [];
    l.push(s.split);
    m.set(s.config, l);
  }
  return [...m].map(([config, splits]) => ({ config, splits }));
}

export const list = (xs: readonly string[]) => xs.map((x) => `"${x}"`).join(', ');

export function pickSplit(layout: Layout, config: string | undefined, split: string | undefined): SplitFiles {
  const configs = configsOf(layout);
  const prefer = (names: readonly string[], want: readonly string[]) => want.find((w) => names.includes(w)) ?? names[0]!;
  const cfg = config ?? prefer(configs.map((c) => c.config), ['corpus', 'default']);
  const c = configs.find((x) => x.config === cfg);
  if (!c) throw new HubDatasetError(`no such config "${cfg}" in ${layout.dataset}: its configs are ${list(configs.map((x) => x.config))}`);
  const sp = split ?? prefer(c.splits, ['corpus', 'train', 'test']);
  const s = layout.splits.find((x) => x.config === cfg && x.split === sp);
  if (!s) throw new HubDatasetError(`no such split "${sp}" in ${layout.dataset} (config "${cfg}"): its splits are ${list(c.splits)}`);
  return s;
}

// ---------------------------------------------------------------------------------------------------------------
// BEIR layout

export interface Part { dataset: string; layout: Layout; split: SplitFiles }
export interface BeirParts { queries: Part; qrels: Part }

export const partName = (p: Part) => `${p.dataset}:${p.split.config}/${p.split.split}`;

function findPart(layout: Layout, name: string, preferSplits: readonly string[] = []): SplitFiles | null {
  const inConfig = layout.splits.filter((s) => s.config === name);
  if (inConfig.length > 0) return preferSplits.map((w) => inConfig.find((s) => s.split === w)).find(Boolean) ?? inConfig.find((s) => s.split === name) ?? inConfig[0]!;
  return layout.splits.find((s) => s.split === name) ?? null;
}

/** Queries and judgements of a BEIR-layout dataset when `split` is its corpus; null otherwise. */
export async function beirParts(ctx: Ctx, layout: Layout, split: SplitFiles): Promise<BeirParts | null> {
  const corpus = findPart(layout, 'corpus');
  const queries = findPart(layout, 'queries');
  if (!corpus || !queries || corpus !== split) return null;
  const QRELS_SPLITS = ['test', 'dev', 'validation', 'train'];
  const own = findPart(layout, 'qrels', QRELS_SPLITS);
  if (own) return { queries: { dataset: layout.dataset, layout, split: queries }, qrels: { dataset: layout.dataset, layout, split: own } };
  const sibling = `${layout.dataset}-qrels`;
  let qlayout: Layout;
  try {
    qlayout = await discover(ctx, sibling, 'main');
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return null;
  }
  const qsplit = QRELS_SPLITS.map((w) => qlayout.splits.find((s) => s.split === w)).find(Boolean) ?? qlayout.splits[0];
  if (!qsplit) return null;
  return { queries: { dataset: layout.dataset, layout, split: queries }, qrels: { dataset: sibling, layout: qlayout, split: qsplit } };
}

