/**
 * `npm run bench:sotu-vectors`: the build's vector step for the embedded corpus (scripts/sotu-vectors.ts), timed
 * as `npm run build` runs it when the Hub answers: every SOTU chunk (16.5k, 800/120 characters) embedded in Node
 * (onnxruntime-node, q8) with an all-MiniLM-L6-v2-shaped model, the dense CDF, the int8 artifact written. The model
 * is the random-weight MiniLM-shape fixture of scripts/bench/models-fixtures.ts (same layers, width and vocabulary
 * size; a corpus vocabulary, so sequence lengths are realistic), served by the loopback Hub as HF_ENDPOINT.
 * A benchmark: it prints figures (one JSON object on stdout), asserts nothing.
 *
 * Options: --models-dir DIR (default <os tmpdir>/rag-lab-minilm-sotu; generated on first use, needs python3-onnx)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readSotuAddresses } from '../cli/sotu-corpus.ts';
import { serveHub } from '../tests/helpers/hub-server.ts';
import { ensureBenchModels } from './bench/models-fixtures.ts';
import { loadSotuArtifact } from './sotu-artifact.ts';
import { sotuVectors, sotuVectorsPlan } from './sotu-vectors.ts';

const log = (m: string) => process.stderr.write(`[bench:sotu-vectors] ${m}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'models-dir': { type: 'string' } } });
  const root = resolve(values['models-dir'] ?? join(tmpdir(), 'rag-lab-minilm-sotu'));
  const models = ensureBenchModels(root, 'corpus', () => readSotuAddresses().map((a) => a.text), log);
  const hub = await serveHub(models.root);
  const scratch = mkdtempSync(join(tmpdir(), 'rag-lab-sotu-vectors-bench-'));
  try {
    const bm25 = await loadSotuArtifact();
    const plan = { ...sotuVectorsPlan({ HF_ENDPOINT: hub.url, RAG_LAB_SOTU_VECTORS: 'on' }, 'build')!, embedder: models.embedderId };
    const load0 = loadavg()[0];
    const t0 = performance.now();
    const r = await sotuVectors(bm25, plan, { cacheDir: null, modelsCacheDir: join(scratch, 'models'), log });
    const seconds = (performance.now() - t0) / 1000;
    log(r.line);
    const files = r.files!;
    const meta = JSON.parse(new TextDecoder().decode(files.get('sotu/meta.json')));
    const bytes = (pred: (p: string) => boolean) => [...files].filter(([p]) => pred(p)).reduce((a, [, b]) => a + b.byteLength, 0);
    const chunks: number = meta.counts.chunks;
    console.log(JSON.stringify({
      what: 'the build\'s SOTU vector step (load q8 MiniLM-shape model from the loopback Hub, embed every chunk, dense CDF, write the int8 artifact)',
      command: 'npm run bench:sotu-vectors',
      chunks, dim: meta.embedder.dim, dtype: plan.dtype,
      seconds: Number(seconds.toFixed(1)), passagesPerSecond: Number((chunks / seconds).toFixed(1)),
      artifactMB: Number((bytes(() => true) / 1e6).toFixed(2)), int8MB: Number((bytes((p) => p.includes('embeddings.int8/')) / 1e6).toFixed(2)),
      machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? null, loadavgBefore: Number(load0!.toFixed(2)), loadavgAfter: Number(loadavg()[0]!.toFixed(2)) },
      node: process.version,
    }, null, 2));
  } finally {
    await hub.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:sotu-vectors: ${(e as Error).message}\n`);
  process.exit((e as { exitCode?: number }).exitCode ?? 1);
});
