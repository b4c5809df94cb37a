/**
 * The pieces together: an artifact written by `writeArtifact` is pushed with `pushFiles` (index_config.json merged
 * with `addToIndexConfig`) to the loopback Hub, listed and opened from `hubSource` with `openArtifact`, and opened a
 * second time with the Hub closed from the cache, with no request; the opened index answers like the original.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { parseIndexConfig, joinPath } from '../../src/lib/artifact/format.ts';
import { listIndexes, openArtifact } from '../../src/lib/artifact/read.ts';
import { addToIndexConfig, indexConfigBytes, writeArtifact } from '../../src/lib/artifact/write.ts';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { hubSource } from '../../src/lib/hub/hub-source.ts';
import { pushFiles } from '../../src/lib/hub/push.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { memoryArtifactCache } from '../../src/lib/hub/file-cache.ts';
import { serveHubRepos } from '../helpers/hub-repo-server.ts';

const TOKEN = 'hf_integration';
const DOCS: SourceDocument[] = [
  { id: 'a', title: 'Basalt', text: 'Basalt forms when lava cools quickly. Basalt columns line the coast.' },
  { id: 'b', title: 'Obsidian', text: 'Obsidian is volcanic glass with sharp edges. Obsidian tools were traded.' },
  { id: 'c', title: 'Granite', text: 'Granite cools slowly deep underground, so its crystals grow large.' },
];
const hubP = serveHubRepos({ token: TOKEN });
afterAll(async () => { await (await hubP).close(); });

describe('push → hub source → openArtifact', () => {
  test('opens what was pushed, then again offline from the cache', async () => {
    const hub = await hubP;
    hub.addRepo('tester/rocks', new Map([['README.md', new TextEncoder().encode('# rocks\n')]]));
    const kb = KnowledgeBase.build(DOCS, { chunking: false, cdfQueries: 0 });
    const art = await writeArtifact({ id: 'rocks', title: 'Rocks', fields: [], kb });
    const files = new Map([...art.files].map(([p, b]) => [joinPath(art.entry.path, p), b]));
    await pushFiles({
      repo: 'tester/rocks', files, hubUrl: hub.url, token: TOKEN, title: 'Add rocks',
      updateIndexConfig: (cur) => indexConfigBytes(addToIndexConfig(cur ? parseIndexConfig(JSON.parse(new TextDecoder().decode(cur))) : null, art.entry)),
    });
    const cache = memoryArtifactCache();
    const src = await hubSource({ repo: 'tester/rocks', hubUrl: hub.url, cache });
    const entries = await listIndexes(src);
    expect(entries.map((e) => e.id)).toEqual(['rocks']);
    const opened = await openArtifact(src, entries[0]!.path);
    const ids = (k: KnowledgeBase) => k.bm25.search('basalt cools', 3, k.itemId);
    expect(ids(kb).length).toBeGreaterThan(0);
    expect(ids(opened.kb)).toEqual(ids(kb));
    await hub.close();
    const calls: string[] = [];
    const counting: typeof fetch = (input, init) => { calls.push(String(input)); return fetch(input, init); };
    const offline = await hubSource({ repo: 'tester/rocks', hubUrl: hub.url, cache, fetch: counting, retries: 0 });
    expect(offline.resolved).toBe('cache');
    calls.length = 0;
    const again = await openArtifact(offline, (await listIndexes(offline))[0]!.path);
    expect(calls).toEqual([]);
    expect(ids(again.kb)).toEqual(ids(kb));
  });
});
