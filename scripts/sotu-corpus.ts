/** The embedded corpus's files, read from node_modules: cli/sotu-corpus.ts (kept here for the scripts that import it). */
export { readSotuAddresses, sotuCorpusJson, sotuDataDir } from '../cli/sotu-corpus.ts';
