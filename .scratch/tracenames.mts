import { readFileSync } from 'node:fs';
const ev = JSON.parse(readFileSync('/tmp/trace.json', 'utf8')).traceEvents as any[];
const tid = process.argv[2];
const agg: Record<string, number> = {};
for (const e of ev) if (e.ph === 'X' && e.dur && String(e.tid) === tid) { const n = e.name + (e.args?.data?.url ? ' ' + String(e.args.data.url).split('/').pop() : '') + (e.args?.data?.functionName ? ' fn=' + e.args.data.functionName : ''); agg[n] = (agg[n] ?? 0) + e.dur / 1000; }
for (const [k, v] of Object.entries(agg).sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(v.toFixed(1).padStart(8), k);
