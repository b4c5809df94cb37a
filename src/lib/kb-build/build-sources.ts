/**
 * The build sources, one list: where a knowledge base's documents can come from, with the name a summary and a
 * trained model give it, whether the Build tab reads it (a `BuildSource` of that kind, read by `sources.ts`) and how
 * the CLI's build-index / train-embedder take it (the `--data` kinds `collect-data.ts` tells apart, `--arxiv`,
 * `--urls` / `--search`). The tab's source kinds, the CLI's data kinds, their names and the CLI's summary of what
 * build-index reads derive from it. A new source: its reader (in `data/` or `ingest/`), its entry here, and its case
 * where it is read (`sources.ts` for the tab: a compile error until written; a loader in `collect-data.ts` for the CLI).
 */

export interface BuildSourceDef {
  /** In words ("BEIR folder"): a CLI build's summary and what a trained model records it was trained on. */
  readonly name: string;
  /** The Build tab reads it (`BuildSource['kind']`). */
  readonly tab: boolean;
  /** The CLI reads it (`BuildData['kind']`). */
  readonly cli: boolean;
  /** How the top-level `rag-lab` help names it in build-index's line; null: not named there. */
  readonly cliHelp: string | null;
}

/** In the order the CLI's help names them. */
export const BUILD_SOURCES = Object.freeze({
  beir: { name: 'BEIR folder', tab: false, cli: true, cliHelp: 'BEIR' },
  ragbench: { name: 'RAGBench subset', tab: false, cli: true, cliHelp: 'RAGBench' },
  files: { name: 'text folder', tab: true, cli: true, cliHelp: 'a folder of PDF/TXT/MD/HTML files' },
  arxiv: { name: 'arXiv query', tab: true, cli: true, cliHelp: 'arXiv' },
  web: { name: 'web pages', tab: true, cli: true, cliHelp: 'web pages' },
  artifact: { name: 'knowledge-base artifact', tab: false, cli: true, cliHelp: null },
  'hub-dataset': { name: 'Hub dataset', tab: true, cli: false, cliHelp: null },
  rebuild: { name: 'knowledge base built here', tab: true, cli: false, cliHelp: null },
} as const satisfies Record<string, BuildSourceDef>);

export type BuildSourceId = keyof typeof BUILD_SOURCES;
type Where<P extends 'tab' | 'cli'> = { [K in BuildSourceId]: (typeof BUILD_SOURCES)[K][P] extends true ? K : never }[BuildSourceId];
/** The sources the Build tab reads: `BuildSource['kind']` (requests.ts checks it is exactly these). */
export type TabSourceKind = Where<'tab'>;
/** The sources the CLI reads: `BuildData['kind']`. */
export type DataKind = Where<'cli'>;

/** The lists derived from the entries: the tab's kinds, the CLI's kinds with their names, build-index's summary. */
export function derivedSourceLists(sources: Readonly<Record<string, BuildSourceDef>>) {
  const entries = Object.entries(sources);
  return {
    TAB_SOURCE_KINDS: Object.freeze(entries.filter(([, d]) => d.tab).map(([id]) => id)) as readonly TabSourceKind[],
    DATA_KIND_NAMES: Object.freeze(Object.fromEntries(entries.filter(([, d]) => d.cli).map(([id, d]) => [id, d.name]))) as Readonly<Record<DataKind, string>>,
    /** "BEIR, RAGBench, a folder of PDF/TXT/MD/HTML files, arXiv, web pages". */
    CLI_SOURCES_TEXT: entries.flatMap(([, d]) => (d.cli && d.cliHelp ? [d.cliHelp] : [])).join(', '),
  };
}

export const { TAB_SOURCE_KINDS, DATA_KIND_NAMES, CLI_SOURCES_TEXT } = derivedSourceLists(BUILD_SOURCES);
