/** Writes a corpus-trained model's files under a models folder (`<dir>/<id>/…`) for loading through transformers.js. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function writeModelFiles(dir: string, id: string, files: Record<string, Uint8Array>): string {
  const root = join(dir, id);
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), bytes);
  }
  return root;
}
