/**
 * A local stand-in for the Hugging Face dataset viewer's `/rows` API (rungalileo/ragbench, split test), serving the
 * RAGBench JSONL files in ../shared at test time. CORS is open, as on the real viewer.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { listenLocal } from './listen.ts';

/** Makes every page load of `page` use `viewerUrl` as its dataset viewer (the stored setting), before the app starts. */
export async function useViewer(page: Page, viewerUrl: string): Promise<void> {
  await page.addInitScript((host) => {
    const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
    localStorage.setItem('rag-lab:settings', JSON.stringify({ ...s, datasetsHost: host }));
  }, viewerUrl);
}

export interface ViewerServer { url: string; server: Server; requests: URL[]; close(): Promise<void> }

export async function serveViewer(dataDir: string): Promise<ViewerServer> {
  const requests: URL[] = [];
  const lines: Record<string, string[]> = {};
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' }).end(JSON.stringify(body));
    if (req.method === 'OPTIONS') { res.writeHead(204, { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': '*' }).end(); return; }
    requests.push(u);
    const config = u.searchParams.get('config') ?? '';
    if (u.pathname !== '/rows' || u.searchParams.get('dataset') !== 'rungalileo/ragbench' || !/^[a-z]+$/.test(config)) {
      json(404, { error: 'The dataset or config does not exist.' });
      return;
    }
    let all: string[];
    try {
      all = lines[config] ??= readFileSync(join(dataDir, `${config}.jsonl`), 'utf8').split('\n').filter(Boolean);
    } catch {
      json(404, { error: 'The config does not exist.' });
      return;
    }
    const offset = Number(u.searchParams.get('offset') ?? 0);
    const length = Math.min(100, Number(u.searchParams.get('length') ?? 100));
    const rows = all.slice(offset, offset + length).map((l, i) => ({ row_idx: offset + i, row: JSON.parse(l), truncated_cells: [] }));
    json(200, { rows, num_rows_total: all.length, num_rows_per_page: 100, partial: false });
  });
  const { origin, close } = await listenLocal(server);
  return { url: origin, server, requests, close };
}
