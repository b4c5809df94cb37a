/**
 * Corpus-trained embedders kept in this browser (IndexedDB database `rag-lab-trained-models`, its own database so no
 * other store's version changes): store `meta` holds each model's list entry (`TrainedModelMeta`, with the size and
 * SHA-256 of every file), store `files` one record per file. A model is written in one transaction; every read is
 * validated (valibot) and a file is checked against its SHA-256 before it is served. Sizes are bounded: at most
 * {@link MAX_TRAINED_MODELS} models of at most {@link MAX_TRAINED_MODEL_BYTES} each, only the files of TRAINED_FILES.
 */
import * as v from 'valibot';
import { TRAINED_FILES, isTrainedModelId } from '../models/trained-ids.ts';
import { sha256Hex } from '../checksum.ts';
import { yieldingDatabase } from './open-db.ts';
import { checkRecord } from './record-schemas.ts';
import { writeTransaction } from './write-tx.ts';

export const TRAINED_DB = 'rag-lab-trained-models';
const VERSION = 1;
const STORES = { meta: 'meta', files: 'files' } as const;
export const TRAINED_SCHEMA_VERSION = 1;
export const MAX_TRAINED_MODELS = 20;
/** fp32 + q8 graphs of 50,000 terms × 256 dimensions are ≈ 65 MB. */
export const MAX_TRAINED_MODEL_BYTES = 160 * 1024 * 1024;
const MAX_TITLE = 200;

const sha = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
export const TrainedModelMetaSchema = v.object({
  id: v.pipe(v.string(), v.check(isTrainedModelId, 'is not a corpus/… model id')),
  kbId: v.pipe(v.string(), v.minLength(1), v.maxLength(400)),
  kbTitle: v.pipe(v.string(), v.maxLength(MAX_TITLE)),
  method: v.literal('lsi'),
  dim: v.pipe(count, v.minValue(1)),
  documents: count,
  vocabulary: count,
  seconds: v.pipe(v.number(), v.minValue(0)),
  created: v.pipe(v.string(), v.isoTimestamp()),
  bytes: v.pipe(count, v.maxValue(MAX_TRAINED_MODEL_BYTES)),
  files: v.pipe(v.array(v.object({ path: v.picklist(TRAINED_FILES), bytes: count, sha256: sha })), v.minLength(1), v.maxLength(TRAINED_FILES.length)),
  notes: v.pipe(v.array(v.pipe(v.string(), v.maxLength(500))), v.maxLength(20)),
  /** SHA-256 of the training texts (`corpusHashOf`); absent on models trained before it was recorded. */
  corpusHash: v.optional(sha),
});
export type TrainedModelMeta = v.InferOutput<typeof TrainedModelMetaSchema>;

const MetaRecordSchema = v.object({ id: v.string(), schemaVersion: v.literal(TRAINED_SCHEMA_VERSION), meta: TrainedModelMetaSchema });
const FileRecordSchema = v.object({ key: v.string(), bytes: v.instance(Uint8Array) });

/** A model that cannot be saved or used; the message says which and what to do. */
export class TrainedModelError extends Error {
  override name = 'TrainedModelError';
}

const fileKey = (id: string, path: string) => `${id}\u0000${path}`;
export const notStoredMessage = (id: string) => `${id} is a corpus-trained model that is not in this browser (deleted, or trained in another browser): train it again from its knowledge base.`;
const damaged = (id: string, why: string) => new TrainedModelError(`The corpus-trained model ${id} is damaged (${why}): delete it and train it again.`);

/** What a new model is saved from: its description (sizes and hashes are computed here) and its files. */
export interface NewTrainedModel {
  meta: Omit<TrainedModelMeta, 'bytes' | 'files'>;
  files: Record<string, Uint8Array>;
}

/** Checks a model before it is saved and computes its file list: known files only, within the size bound. */
export async function describeFiles(id: string, files: Record<string, Uint8Array>): Promise<TrainedModelMeta['files']> {
  const out: TrainedModelMeta['files'] = [];
  let total = 0;
  for (const [path, bytes] of Object.entries(files)) {
    if (!(TRAINED_FILES as readonly string[]).includes(path)) throw new TrainedModelError(`${id} cannot be saved: "${path}" is not a file of a corpus-trained model.`);
    if (!(bytes instanceof Uint8Array)) throw new TrainedModelError(`${id} cannot be saved: "${path}" is not bytes.`);
    total += bytes.byteLength;
    out.push({ path: path as TrainedModelMeta['files'][number]['path'], bytes: bytes.byteLength, sha256: await sha256Hex(bytes) });
  }
  if (!out.some((f) => f.path === 'config.json')) throw new TrainedModelError(`${id} cannot be saved: it has no config.json.`);
  if (total > MAX_TRAINED_MODEL_BYTES) {
    throw new TrainedModelError(`${id} cannot be saved: its files take ${(total / 1e6).toFixed(1)} MB, more than the ${(MAX_TRAINED_MODEL_BYTES / 1e6).toFixed(0)} MB a corpus-trained model may take (train with a smaller dimension).`);
  }
  return out;
}

export class IndexedDbTrainedModelStore {
  private readonly db: ReturnType<typeof yieldingDatabase>;

  constructor(name: string = TRAINED_DB) {
    this.db = yieldingDatabase(name, VERSION, (d) => {
      if (!d.objectStoreNames.contains(STORES.meta)) d.createObjectStore(STORES.meta, { keyPath: 'id' });
      if (!d.objectStoreNames.contains(STORES.files)) d.createObjectStore(STORES.files, { keyPath: 'key' });
    });
  }

  /** The stored models, newest first; a record of the wrong shape is left out. */
  async list(): Promise<TrainedModelMeta[]> {
    const all = (await (await this.db()).getAll(STORES.meta)) as unknown[];
    const out: TrainedModelMeta[] = [];
    for (const rec of all) if (checkRecord(MetaRecordSchema, rec, 'a trained model').ok) out.push((rec as v.InferOutput<typeof MetaRecordSchema>).meta);
    return out.sort((a, b) => b.created.localeCompare(a.created) || a.id.localeCompare(b.id));
  }

  /** The model's description, null when it is not stored; a damaged record throws in words. */
  async meta(id: string): Promise<TrainedModelMeta | null> {
    const rec = (await (await this.db()).get(STORES.meta, id)) as unknown;
    if (rec === undefined) return null;
    const check = checkRecord(MetaRecordSchema, rec, 'its description');
    if (!check.ok) throw damaged(id, check.reason);
    return (rec as v.InferOutput<typeof MetaRecordSchema>).meta;
  }

  /** One file's bytes after its SHA-256 matched; null when the model or file is not stored. */
  async readFile(id: string, path: string): Promise<Uint8Array | null> {
    const meta = await this.meta(id);
    const entry = meta?.files.find((f) => f.path === path);
    if (!meta || !entry) return null;
    const rec = (await (await this.db()).get(STORES.files, fileKey(id, path))) as unknown;
    if (rec === undefined) throw damaged(id, `${path} is missing`);
    const check = checkRecord(FileRecordSchema, rec, path);
    if (!check.ok) throw damaged(id, check.reason);
    const bytes = (rec as { bytes: Uint8Array }).bytes;
    if (bytes.byteLength !== entry.bytes || (await sha256Hex(bytes)) !== entry.sha256) throw damaged(id, `${path} does not match its SHA-256`);
    return bytes;
  }

  /** Reads every file of the model (checksums included): throws in words when it cannot be loaded. */
  async verify(id: string): Promise<TrainedModelMeta> {
    const meta = await this.meta(id);
    if (!meta) throw new TrainedModelError(notStoredMessage(id));
    for (const f of meta.files) await this.readFile(id, f.path);
    return meta;
  }

  /** Saves (or replaces) a model in one transaction; a full quota or a bound leaves the store as it was. */
  async put(model: NewTrainedModel): Promise<TrainedModelMeta> {
    const { id } = model.meta;
    const files = await describeFiles(id, model.files);
    const meta: TrainedModelMeta = { ...model.meta, bytes: files.reduce((a, f) => a + f.bytes, 0), files };
    const check = checkRecord(TrainedModelMetaSchema, meta, `the description of ${id}`);
    if (!check.ok) throw new TrainedModelError(`${id} cannot be saved: ${check.reason}.`);
    const stored = await this.list();
    if (!stored.some((m) => m.id === id) && stored.length >= MAX_TRAINED_MODELS) {
      throw new TrainedModelError(`${id} cannot be saved: ${MAX_TRAINED_MODELS} corpus-trained models are stored already (delete one in Settings first).`);
    }
    const previous = stored.find((m) => m.id === id);
    await writeTransaction(await this.db(), [STORES.meta, STORES.files], async (tx) => {
      for (const f of previous?.files ?? []) await tx.objectStore(STORES.files).delete(fileKey(id, f.path));
      for (const f of files) await tx.objectStore(STORES.files).put({ key: fileKey(id, f.path), bytes: model.files[f.path]! });
      await tx.objectStore(STORES.meta).put({ id, schemaVersion: TRAINED_SCHEMA_VERSION, meta });
    }, (e) => {
      const err = e as DOMException | undefined;
      if (err instanceof TrainedModelError) return err;
      return new TrainedModelError(err?.name === 'QuotaExceededError'
        ? `${id} cannot be saved: the browser storage quota is full. Nothing was changed; free space (delete knowledge bases, reports or models you no longer need) and try again.`
        : `${id} cannot be saved (${err?.message || String(e)}). Nothing was changed.`);
    });
    return meta;
  }

  /** Deletes a model and its files; false when it was not stored. */
  async remove(id: string): Promise<boolean> {
    const meta = await this.meta(id).catch(() => null);
    const d = await this.db();
    const existed = (await d.getKey(STORES.meta, id)) !== undefined;
    await writeTransaction(d, [STORES.meta, STORES.files], async (tx) => {
      for (const path of meta ? meta.files.map((f) => f.path) : TRAINED_FILES) await tx.objectStore(STORES.files).delete(fileKey(id, path));
      await tx.objectStore(STORES.meta).delete(id);
    }, (e) => new TrainedModelError(`${id} could not be deleted (${(e as Error)?.message || String(e)}).`));
    return existed;
  }
}
