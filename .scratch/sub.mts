import { scifactSubset } from '../tests/helpers/beir-subset.ts';
console.log(scifactSubset({ queries: 30, others: 60, parent: '/tmp/tunesub' }));
