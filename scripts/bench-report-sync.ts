/**
 * `npx tsx scripts/bench-report-sync.ts`: report sync (src/lib/reports/hub-sync.ts) against the loopback Hub
 * (tests/helpers/hub-repo-server.ts) in Node. Prints one JSON object (indented with --pretty).
 *
 * Pushes --reports reports of --rows rows one by one (one commit each), then pulls them into an empty store, then
 * pulls again with nothing new. Times in ms (push: median and last; pulls: total), HTTP requests per operation,
 * bytes of one report file.
 *
 * Options: --reports 30  --rows 500  --pretty
 */
import { parseArgs } from 'node:util';
import { serializeReport } from '../src/lib/reports/format.ts';
import { emptyMemo, pullReports, pushChange, type SyncMemo } from '../src/lib/reports/hub-sync.ts';
import { serveHubRepos } from '../tests/helpers/hub-repo-server.ts';
import { MemoryReportStore } from '../src/lib/reports/memory-store.ts';
import { syncReport } from '../tests/helpers/report-fixture.ts';

const { values } = parseArgs({ options: { reports: { type: 'string', default: '30' }, rows: { type: 'string', default: '500' }, pretty: { type: 'boolean', default: false } } });
const count = Number(values.reports);
const rows = Number(values.rows);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const TOKEN = 'hf_benchsynctoken1';
const REPO = 'bench/reports';

const hub = await serveHubRepos({ token: TOKEN });
hub.addRepo(REPO, new Map([['README.md', new TextEncoder().encode('# bench\n')]]));
const t = { repo: REPO, hubUrl: hub.url, token: TOKEN };
const store = new MemoryReportStore();
let memo: SyncMemo = emptyMemo();
const pushMs: number[] = [];
let pushRequests = 0;
let fileBytes = 0;
for (let i = 0; i < count; i++) {
  const r = syncReport(`bench ${i}`, i + 1, rows);
  fileBytes = serializeReport(r).length;
  await store.put(r, 'run');
  const before = hub.requests.length;
  const t0 = performance.now();
  memo = (await pushChange(t, store, memo, { type: 'put', id: r.id })).memo;
  pushMs.push(performance.now() - t0);
  pushRequests = hub.requests.length - before;
}
const fresh = new MemoryReportStore();
let before = hub.requests.length;
let t0 = performance.now();
const first = await pullReports(t, fresh, emptyMemo());
const pullMs = performance.now() - t0;
const pullRequests = hub.requests.length - before;
before = hub.requests.length;
t0 = performance.now();
await pullReports(t, fresh, first.memo);
const repullMs = performance.now() - t0;
const out = {
  reports: count, rows, node: process.version, reportFileBytes: fileBytes,
  pushMsMedian: Math.round(median(pushMs)), pushMsLast: Math.round(pushMs.at(-1)!), requestsPerPushLast: pushRequests,
  pullAllMs: Math.round(pullMs), pullAllRequests: pullRequests, pulled: first.added.length,
  pullNothingNewMs: Math.round(repullMs), pullNothingNewRequests: hub.requests.length - before,
};
console.log(JSON.stringify(out, null, values.pretty ? 2 : 0));
await hub.close();
