/**
 * `npx tsx scripts/bench-publish.ts`: the Build tab's Export .zip and Publish in Node, on the BEIR SciFact corpus
 * (../shared/data/scifact, read by path; nothing is written to the repo). Prints one JSON object (--pretty indents).
 *
 * Builds the BM25 knowledge base (800/120 chunks) and its artifact files, then times `artifactZip` (bytes, ms),
 * `readArtifactZip` + `openArtifact` (ms), and `publishLocalKb` to the loopback Hub (tests/helpers/hub-repo-server.ts):
 * a first publish and a second one after a concurrent commit (412, merged). Medians of --runs runs.
 *
 * Options: --corpus ../shared/data/scifact/corpus.jsonl  --runs 3  --pretty
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openArtifact } from '../src/lib/artifact/read.ts';
import { writeArtifact } from '../src/lib/artifact/write.ts';
import { artifactZip, readArtifactZip } from '../src/lib/artifact/zip.ts';
import { publishLocalKb } from '../src/lib/kb-build/publish.ts';
import { parseCorpus } from '../src/lib/data/beir.ts';
import { DEFAULT_CHUNKING } from '../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { serveHubRepos } from '../tests/helpers/hub-repo-server.ts';

const { values } = parseArgs({ options: {
  corpus: { type: 'string', default: resolve(import.meta.dirname, '../../shared/data/scifact/corpus.jsonl') },
  runs: { type: 'string', default: '3' }, pretty: { type: 'boolean', default: false },
} });
const runs = Number(values.runs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = async <T>(fn: () => Promise<T> | T): Promise<{ ms: number; out: T }> => {
  const t0 = performance.now();
  const out = await fn();
  return { ms: performance.now() - t0, out };
};

const docs = parseCorpus(readFileSync(values.corpus, 'utf8'), values.corpus);
const kb = KnowledgeBase.build(docs, { chunking: DEFAULT_CHUNKING });
const built = await writeArtifact({ id: 'scifact', title: 'SciFact', fields: [], kb });
const artifactBytes = [...built.files.values()].reduce((a, b) => a + b.byteLength, 0);

const zipMs: number[] = [], readMs: number[] = [], openMs: number[] = [];
let zip: Uint8Array = new Uint8Array(0);
for (let i = 0; i < runs; i++) {
  const z = await time(() => artifactZip('scifact', built.entry, built.files));
  zip = z.out;
  zipMs.push(z.ms);
  const r = await time(() => readArtifactZip(zip, 'scifact.zip'));
  readMs.push(r.ms);
  openMs.push((await time(() => openArtifact(r.out, 'scifact'))).ms);
}

const TOKEN = 'hf_benchpublishtoken1';
const REPO = 'bench/kbs';
const hub = await serveHubRepos({ token: TOKEN, strictTokens: true });
const enc = (s: string) => new TextEncoder().encode(s);
const firstMs: number[] = [], raceMs: number[] = [];
for (let i = 0; i < runs; i++) {
  const repo = `${REPO}-${i}`;
  hub.addRepo(repo, new Map([['README.md', enc('# bench\n')]]));
  const opts = { repo, hubUrl: hub.url, token: TOKEN, name: 'scifact', files: built.files, entry: built.entry, retryDelayMs: 1 };
  firstMs.push((await time(() => publishLocalKb(opts))).ms);
  hub.beforeNextCommit(() => { hub.commitFiles(repo, new Map([['other.txt', enc('x')]])); });
  const race = await time(() => publishLocalKb({ ...opts, name: 'scifact-2' }));
  if (race.out.attempts !== 2) throw new Error(`expected a 412 and a retry, got ${race.out.attempts} attempts`);
  raceMs.push(race.ms);
}
await hub.close();

const out = {
  corpus: { documents: docs.length, chunks: kb.size, artifactFiles: built.files.size, artifactBytes },
  zip: { bytes: zip.byteLength, ratio: Number((zip.byteLength / artifactBytes).toFixed(3)), writeMs: Math.round(median(zipMs)), readMs: Math.round(median(readMs)), openFromZipMs: Math.round(median(openMs)) },
  publish: { firstMs: Math.round(median(firstMs)), after412Ms: Math.round(median(raceMs)) },
  runs,
};
console.log(JSON.stringify(out, null, values.pretty ? 2 : undefined));
