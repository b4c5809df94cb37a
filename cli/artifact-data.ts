/**
 * A built knowledge base as a .zip on disk (the Build tab's export, `src/lib/artifact/zip.ts`): read for `--kb kb.zip`
 * and as the input of another build (`rag-lab build-index --data kb.zip`, src/lib/kb-build/collect-data.ts).
 */
import { readFileSync } from 'node:fs';
import type { FileSource } from '../src/lib/artifact/types.ts';
import { readArtifactZip } from '../src/lib/artifact/zip.ts';
import { withFile } from './fs-errors.ts';

/** A .zip of an artifact folder (Build tab export) as a FileSource labelled with its path; faults are ArtifactErrors. */
export function zipFileSource(file: string): FileSource {
  const bytes = withFile(file, () => readFileSync(file));
  return readArtifactZip(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), file);
}
