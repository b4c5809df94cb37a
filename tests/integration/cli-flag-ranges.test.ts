/**
 * Every numeric flag of every command has an upper bound, declared once (src/lib/eval/core/flag-ranges.ts) and enforced by
 * the parser before the command runs: a huge value is one line and exit 2, never unbounded work
 * (`train-embedder --power-iterations 1e9`). Every flag a command's help names is either numeric (and bounded) or
 * listed here as not numeric, so a new numeric flag cannot be added without its range.
 */
import { describe, expect, test } from 'vitest';
import { COMMANDS } from '../../cli/run.ts';
import { FLAG_RANGES } from '../../src/lib/eval/core/flag-ranges.ts';
import { runCli } from '../helpers/cli.ts';

/** Flags that take no number: paths, names, choices, URLs, switches. */
const NOT_NUMERIC = new Set([
  'agentic', 'agree-with', 'analysis', 'analyze', 'analyzer', 'api-key', 'arxiv', 'arxiv-endpoint', 'arxiv-sort', 'base-url', 'baseline', 'cache-dir',
  'calibration', 'chunk', 'config', 'config-out', 'data', 'description', 'dtype', 'embedder', 'embedders', 'entropy-basis', 'estimate', 'evaluator', 'grade-each', 'grader-model', 'hnsw',
  'id', 'index', 'int8', 'json', 'kb', 'limits', 'metric', 'mode', 'model', 'model-host', 'models-dir', 'modes', 'nli', 'no-cache',
  'no-chunk', 'no-predictors', 'out', 'pool', 'protocol', 'provider', 'push', 'rebuild', 'report', 'report-out', 'reranker', 'retrieval',
  'retrieval-mode', 'run-out', 'search', 'search-endpoint', 'space', 'split', 'subsets', 'testset', 'title', 'token-env', 'train-embedder', 'transform', 'urls',
]);

describe('numeric flags', () => {
  test('every flag in a help text is classified; every numeric one refuses a huge value with its range, exit 2', async () => {
    for (const command of Object.keys(COMMANDS)) {
      const help = await runCli([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toMatch(/^  --/m);
      const named = [...new Set([...help.stdout.matchAll(/^ {2}--([a-z0-9][a-z0-9-]*)/gm)].map((m) => m[1]!))];
      for (const flag of named) {
        expect(flag in FLAG_RANGES || NOT_NUMERIC.has(flag), `${command} --${flag}: give it a range in src/lib/eval/core/flag-ranges.ts or list it here`).toBe(true);
      }
      for (const [flag, range] of Object.entries(FLAG_RANGES)) {
        const r = await runCli([command, `--${flag}`, '1e12']);
        expect(r.code, `${command} --${flag}`).toBe(2);
        if (/unknown option/.test(r.stderr)) { expect(named, `${command} names --${flag} but does not take it`).not.toContain(flag); continue; }
        expect(r.stderr.trim(), `${command} --${flag}`).toBe(`rag-lab ${command}: --${flag} must be ${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}, got "1e12"`);
      }
    }
  });

  test('train-embedder --power-iterations 1e9 is refused at once; values in range still reach the command', async () => {
    const r = await runCli(['train-embedder', '--power-iterations', '1e9']);
    expect(r).toMatchObject({ code: 2, stderr: 'rag-lab train-embedder: --power-iterations must be a whole number from 0 to 20, got "1e9"\n' });
    expect((await runCli(['train-embedder', '--power-iterations', 'Infinity'])).stderr).toMatch(/--power-iterations must be a whole number from 0 to 20, got "Infinity"/);
    // In range: the command's own checks come next (--data is required).
    expect((await runCli(['train-embedder', '--power-iterations', '5'])).stderr).toMatch(/--data is required/);
    expect((await runCli(['search', '--kb', 'sotu', '--top-k', '0', 'q'])).stderr).toMatch(/--top-k must be an integer in \[1, 100\]/);
  });
});
