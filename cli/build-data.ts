/**
 * What `rag-lab build-index --data` and `train-embedder --data` read, on the Node side: the files through node:fs
 * ({@link nodeDataFiles}), handed to the build's first stage (`collectData`, src/lib/kb-build/collect-data.ts).
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import type { ArxivOptions, ArxivRequest } from '../src/lib/data/arxiv.ts';
import { collectWebFlags, type WebCollectOptions, type WebFlags } from '../src/lib/kb-build/collect-web.ts';
import { BuildError } from '../src/lib/kb-build/build-kb.ts';
import { collectArxiv, collectData, type BuildData, type DataFiles } from '../src/lib/kb-build/collect-data.ts';
import { zipFileSource } from './artifact-data.ts';
import { CliError } from './args.ts';
import { folderSource, nonFileKind } from './folder-source.ts';
import { readText, withFile } from './fs-errors.ts';

/**
 * Every regular file under `dir`, following symbolic links to files and folders (a folder of links to PDFs is a
 * folder of PDFs), each real folder once (a link loop ends); dot-files and dot-folders skipped. FIFOs, sockets,
 * devices and broken links are never read (a FIFO would wait forever): they are listed in `passed`.
 */
function walk(dir: string): { rels: string[]; passed: string[] } {
  const rels: string[] = [], passed: string[] = [];
  const seen = new Set<string>();
  const visit = (d: string) => {
    const real = withFile(d, () => realpathSync(d));
    if (seen.has(real)) return;
    seen.add(real);
    for (const e of withFile(d, () => readdirSync(d, { withFileTypes: true }))) {
      if (e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      let st: Stats = e as unknown as Stats;
      if (e.isSymbolicLink()) {
        const target = withFile(p, () => statSync(p, { throwIfNoEntry: false }));
        if (!target) { passed.push(`${relative(dir, p)} (a broken link)`); continue; }
        st = target;
      }
      if (st.isDirectory()) visit(p);
      else if (st.isFile()) rels.push(relative(dir, p));
      else passed.push(`${relative(dir, p)} (${nonFileKind(st)})`);
    }
  };
  visit(dir);
  return { rels: rels.sort(), passed: passed.sort() };
}

export const nodeDataFiles: DataFiles = {
  resolve, join, basename, walk, readText,
  exists: (path) => existsSync(path),
  isFile: (path) => withFile(path, () => statSync(path)).isFile(),
  size: (path) => withFile(path, () => statSync(path)).size,
  readBytes: (path) => withFile(path, () => readFileSync(path)),
  artifactSource: (abs, zip) => (zip ? zipFileSource(abs) : folderSource(abs)),
};

/** A fault the user can fix (a BuildError), as the CLI says it. */
export const cliFault = <T>(run: () => Promise<T>): Promise<T> => run().catch((e: unknown) => { throw e instanceof BuildError ? new CliError(e.message) : e; });

export const loadBuildData = (path: string, split = 'test'): Promise<BuildData> => cliFault(() => collectData(nodeDataFiles, path, split));

export const loadArxivData = (req: ArxivRequest, opts: Partial<ArxivOptions> = {}): Promise<BuildData> => cliFault(() => collectArxiv(req, opts));

export const loadWebData = (web: WebFlags, opts: WebCollectOptions): Promise<BuildData> => cliFault(() => collectWebFlags(nodeDataFiles, web, opts));
