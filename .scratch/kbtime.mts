import { readFileSync } from 'node:fs';
import { buildRunKb } from '../src/lib/eval/retrieval/retrieval-session.ts';
const docs = readFileSync('/work/shared/data/scifact/corpus.jsonl', 'utf8').trim().split('\n').map((l) => { const o = JSON.parse(l); return { id: String(o._id), title: o.title ?? '', text: o.text ?? '' }; });
for (let i = 0; i < 3; i++) { const t = performance.now(); const kb = buildRunKb(docs, { chunking: false, bm25: { k1: 0.9, b: 0.4 }, analyzer: 'english' }); console.log(kb.size, (performance.now() - t).toFixed(0), 'ms'); }
