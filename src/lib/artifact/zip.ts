/**
 * An index artifact as one .zip file (Build tab export, `rag-lab build-index --data x.zip`, `--kb x.zip`): the Hub
 * repo layout, `index_config.json` + `<name>/…`. CONTRACT STUB (issue 12): the publish helper implements it.
 */
import type { IndexEntry } from './format.ts';
import type { FileSource } from './types.ts';

/** The zip of one index: `index_config.json` listing `entry`, and `files` under `<name>/`. */
export function artifactZip(_name: string, _entry: IndexEntry, _files: Map<string, Uint8Array>): Uint8Array {
  throw new Error('Zip export is not built yet.');
}

/** A zip made by `artifactZip` (or by hand in that layout) as a FileSource; hostile zips are refused. */
export function readArtifactZip(_bytes: Uint8Array, _label: string): FileSource {
  throw new Error('Zip import is not built yet.');
}
