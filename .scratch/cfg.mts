import { parseRunConfigFile } from '../src/lib/settings/run-config-file.ts';
for (const t of ['{"mode":"hybrid_fixed","settings":{"alpha":0.7,"k1":1.2}}', '{"mode":"x","settings":{}}', '{"mode":"sparse","settings":{"bogus":1}}', '{"mode":"sparse","settings":{"alpha":2}}', '{"mode":"sparse"}', 'nope', '{"mode":"sparse","settings":{},"x":1}']) {
  try { console.log(JSON.stringify(parseRunConfigFile(t))); } catch (e) { console.log('ERR', (e as Error).message); }
}
