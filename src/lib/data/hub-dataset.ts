/**
 * A Hugging Face Hub dataset as a knowledge-base source (the Build tab; pure, so a CLI can use it too): configs and
 * splits, the parquet schema with guessed id / title / text / metadata columns, and the rows read as parquet with
 * HTTP range requests (hyparquet), up to a row limit, with progress. BEIR-layout datasets (configs `corpus` and
 * `queries`, judgements in `<dataset>-qrels` or a `qrels` config) bring their queries and qrels along.
 *
 * Where the parquet files come from (docs/build.md "From a Hub dataset"):
 *   1. the repo's own parquet files at the revision (`{config}/{split}-00000-of-00002.parquet`,
 *      `data/{split}-….parquet`, `{config}/{split}/0000.parquet`, `{split}.parquet`), else
 *   2. the Hub's conversion, the ref `refs/convert/parquet` (`{config}/{split}/0000.parquet`), else
 *   3. the Hub's list of that conversion, `GET /api/datasets/{ds}/parquet` (URLs that redirect to the files; not pinned).
 * Each of 1 and 2 is pinned once to its commit sha (`GET /api/datasets/{ds}/revision/{rev}`) and listed with the tree API at that
 * sha (which gives every file's size, so no HEAD); files are read at the sha, so a build reads one immutable state.
 * Shards of a split are read in order until the row limit: a large row group per request, runs of small ones coalesced
 * into one range (parquet-ranges.ts; a file of one-row row groups no longer costs a request per row). Column types and
 * the column guess: hub-columns.ts; the HTTP: hub-dataset-http.ts; configs, splits and shards: hub-dataset-layout.ts;
 * footers and rows: hub-dataset-rows.ts.
 *
 * Tokens: only in `Authorization`, only to `opts.hubUrl`'s origin (`authorizedFetch`), never in a URL or message.
 * Range reads and API calls go through a retrying fetch (a dropped connection, no answer, 5xx/429: a few tries with
 * backoff), then fail with a message naming the host and file.
 */
import { parquetReadObjects } from 'hyparquet';
import * as v from 'valibot';
import type { SkippedItem, SourceDocuments } from './source-documents.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import { asText, columnsOf, guessColumns, metaValue, NUMERIC, SCALAR } from './hub-columns.ts';
import { makeCtx } from './hub-dataset-http.ts';
import { beirParts, configsOf, discover, list, partName, pickSplit } from './hub-dataset-layout.ts';
import { fmt, lc, needColumns, openShards, readQrels, readQueries, readRows } from './hub-dataset-rows.ts';
import { HubDatasetError, MAX_ROWS, parseDatasetId, type HubDatasetInfo, type HubDatasetOptions, type HubDatasetRequest } from './hub-dataset-types.ts';
import { dict } from '../dict.ts';
import type { MetaField } from './kb-source.ts';

export { guessColumns, typeInWords } from './hub-columns.ts';
export { DEFAULT_MAX_ROWS, HubDatasetError, MAX_ROWS, parseDatasetId } from './hub-dataset-types.ts';
export type { ColumnMapping, HubDatasetColumn, HubDatasetInfo, HubDatasetOptions, HubDatasetRequest } from './hub-dataset-types.ts';

/** Rows with empty text listed one by one in `skipped` (the rest are counted in a note). */
const SKIPPED_LISTED = 20;

// ---------------------------------------------------------------------------------------------------------------
// The two entry points

const InspectRequest = v.object({
  dataset: v.string(),
  config: v.optional(v.pipe(v.string(), v.minLength(1))),
  split: v.optional(v.pipe(v.string(), v.minLength(1))),
  revision: v.optional(v.pipe(v.string(), v.minLength(1))),
});

function datasetOf(input: string): string {
  const ds = parseDatasetId(input);
  if (!ds) throw new HubDatasetError(`"${input.slice(0, 100)}" is not a Hub dataset: type owner/name (e.g. BeIR/scifact) or paste the dataset's page URL`);
  return ds;
}

/** Rows sampled from the first shard for the text guess and the preview. */
const SAMPLE_ROWS = 20;

export async function inspectHubDataset(req: { dataset: string; config?: string; split?: string; revision?: string }, opts: HubDatasetOptions): Promise<HubDatasetInfo> {
  const r = v.safeParse(InspectRequest, req);
  if (!r.success) throw new HubDatasetError(`the dataset form is incomplete (${r.issues[0]!.message})`);
  const dataset = datasetOf(r.output.dataset);
  const ctx = makeCtx(opts);
  const layout = await discover(ctx, dataset, r.output.revision ?? 'main');
  const split = pickSplit(layout, r.output.config, r.output.split);
  const shards = await openShards(ctx, dataset, split.shards);
  const columns = columnsOf(shards[0]!.metadata);
  const sampleCols = columns.filter((c) => c.type === 'string' || c.type === 'list<string>' || c.type === 'json' || SCALAR.has(c.type)).map((c) => c.name);
  const sample = shards[0]!.rows > 0 && sampleCols.length > 0
    ? await parquetReadObjects({ file: shards[0]!.file, metadata: shards[0]!.metadata, columns: sampleCols, rowStart: 0, rowEnd: Math.min(SAMPLE_ROWS, shards[0]!.rows) })
      .catch((e: unknown) => { if (ctx.signal?.aborted || e instanceof HubDatasetError) throw e; return []; })
    : [];
  const guess = guessColumns(columns, sample);
  const notes = [...layout.notes];
  if (!guess.text) notes.push(`No column looks like text: pick the text column (${list(columns.map((c) => c.name))}).`);
  if (split.shards.length > 1) notes.push(`${split.config}/${split.split} is ${split.shards.length} parquet files, read in order.`);
  const beir = await beirParts(ctx, layout, split);
  if (beir) notes.push(`BEIR layout: queries from ${partName(beir.queries)}, judgements from ${partName(beir.qrels)} (they come along for the retrieval benchmark).`);
  const shown = [guess.id, guess.title, guess.text, ...guess.metadata].filter((c): c is string => !!c);
  const preview = sample.slice(0, 3).map((row) => Object.fromEntries(shown.map((c) => {
    const t = asText(row[c]);
    return [c, t.length > 200 ? `${t.slice(0, 200)}…` : t];
  })));
  return {
    dataset, revision: layout.sha, configs: configsOf(layout), config: split.config, split: split.split, columns,
    rows: shards.reduce((s, x) => s + x.rows, 0), guess,
    beir: beir ? { queries: partName(beir.queries), qrels: partName(beir.qrels) } : null,
    notes, preview,
  };
}

const Mapping = v.object({
  id: v.nullable(v.pipe(v.string(), v.minLength(1))),
  title: v.nullable(v.pipe(v.string(), v.minLength(1))),
  text: v.pipe(v.string(), v.minLength(1, 'pick the text column')),
  metadata: v.array(v.pipe(v.string(), v.minLength(1))),
});
const DocumentsRequest = v.object({
  dataset: v.string(),
  config: v.pipe(v.string(), v.minLength(1, 'pick a config')),
  split: v.pipe(v.string(), v.minLength(1, 'pick a split')),
  revision: v.optional(v.pipe(v.string(), v.minLength(1))),
  columns: Mapping,
  maxRows: v.pipe(v.number(), v.integer('the row limit must be a whole number'), v.minValue(1, 'the row limit must be at least 1'),
    v.maxValue(MAX_ROWS, `the row limit is at most ${fmt(MAX_ROWS)}`)),
});

export async function hubDatasetDocuments(req: HubDatasetRequest, opts: HubDatasetOptions): Promise<SourceDocuments> {
  const r = v.safeParse(DocumentsRequest, req);
  if (!r.success) throw new HubDatasetError(`the dataset form: ${r.issues.map((i) => `${v.getDotPath(i) ?? 'request'}: ${i.message}`).join('; ')}`);
  const q = r.output;
  const dataset = datasetOf(q.dataset);
  const ctx = makeCtx(opts);
  const progress = (done: number, total: number, item: string) => opts.onProgress?.({ stage: 'download', done, total, item });
  const layout = await discover(ctx, dataset, q.revision ?? 'main');
  const split = pickSplit(layout, q.config, q.split);
  const where = `${dataset} (${split.config}/${split.split})`;
  const shards = await openShards(ctx, dataset, split.shards);
  const have = lc(columnsOf(shards[0]!.metadata));
  const m = q.columns;
  needColumns(have, [m.id, m.title, m.text, ...m.metadata], where);
  const meta = [...new Set(m.metadata)].filter((c) => c !== m.id && c !== m.title && c !== m.text);
  const wanted = [...new Set([m.id, m.title, m.text, ...meta].filter((c): c is string => c !== null))];
  const totalRows = shards.reduce((s, x) => s + x.rows, 0);

  const docs: SourceDocument[] = [];
  const skipped: SkippedItem[] = [];
  const seen = new Map<string, number>();
  let empty = 0;
  let duplicates = 0;
  const read = await readRows(ctx, shards, wanted, q.maxRows, (rows, first) => {
    rows.forEach((row, i) => {
      const n = first + i;
      const text = asText(row[m.text]).trim();
      if (text === '') {
        if (++empty <= SKIPPED_LISTED) skipped.push({ path: `row ${n}`, reason: `empty text (column "${m.text}")` });
        return;
      }
      const rawId = m.id === null ? '' : asText(row[m.id]).trim();
      let id = rawId === '' ? String(n) : rawId;
      const k = seen.get(id);
      if (k !== undefined) {
        duplicates++;
        let j = k + 1;
        while (seen.has(`${id}-${j}`)) j++;
        seen.set(id, j);
        id = `${id}-${j}`;
      }
      seen.set(id, 1);
      const doc: SourceDocument = { id, title: m.title === null ? '' : asText(row[m.title]).trim(), text };
      if (meta.length > 0) {
        const md = dict<string | number>();
        for (const c of meta) {
          const val = metaValue(row[c]);
          if (val !== undefined) md[c] = val;
        }
        doc.meta = md;
      }
      docs.push(doc);
    });
  }, progress);

  const notes = [...layout.notes];
  if (read < totalRows) notes.push(`read the first ${fmt(read)} of ${fmt(totalRows)} rows (the row limit)`);
  if (empty > 0) notes.push(`${fmt(empty)} row${empty > 1 ? 's' : ''} with empty text ${empty > 1 ? 'were' : 'was'} skipped${empty > SKIPPED_LISTED ? ` (the first ${SKIPPED_LISTED} are listed)` : ''}`);
  if (duplicates > 0) notes.push(`${fmt(duplicates)} duplicate id${duplicates > 1 ? 's' : ''} got a suffix (-2, -3, …)`);
  if (docs.length === 0) throw new HubDatasetError(`${where}: no row has text in column "${m.text}" (of ${fmt(read)} read): pick another text column`);

  const fields: MetaField[] = meta.map((name) => ({ name, label: name, type: NUMERIC.has(have.get(name)!.type) ? 'number' : 'string' }));
  const out: SourceDocuments = {
    docs, fields, pages: 0, skipped, notes,
    origin: { kind: 'hub-dataset', dataset, config: split.config, split: split.split, revision: layout.sha, rows: read },
  };
  const beir = await beirParts(ctx, layout, split);
  if (beir) {
    const queries = await readQueries(ctx, beir.queries);
    const qrels = await readQrels(ctx, beir.qrels);
    const ids = new Set(docs.map((d) => d.id));
    let missing = 0;
    for (const j of qrels.values()) for (const d of j.keys()) if (!ids.has(d)) missing++;
    notes.push(`BEIR layout: ${fmt(queries.length)} queries (${partName(beir.queries)}) and judgements for ${fmt(qrels.size)} of them (${partName(beir.qrels)}) came along`);
    if (missing > 0) notes.push(`${fmt(missing)} judged document${missing > 1 ? 's are' : ' is'} not in the knowledge base${read < totalRows ? ' (the row limit cut the corpus)' : ''}`);
    out.queries = queries;
    out.qrels = qrels;
  }
  return out;
}
