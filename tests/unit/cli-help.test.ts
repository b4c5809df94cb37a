/**
 * The CLI's help reads right: every option's continuation lines sit under that option, the top-level help names
 * every kind of data build-index takes, and the seeds the help mentions are explained there and in docs/seeds.md.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.ts';

/** The help's option blocks: "--flag" → the flag's line and the continuation lines under it. */
function optionBlocks(help: string): Map<string, string> {
  const blocks = new Map<string, string>();
  let current: string | null = null;
  for (const line of help.split('\n')) {
    const m = /^ {2}(--[a-z0-9-]+)/.exec(line);
    if (m) { current = m[1]!; blocks.set(current, line); }
    else if (current && /^ {4,}\S/.test(line)) blocks.set(current, `${blocks.get(current)}\n${line}`);
    else current = null;
  }
  return blocks;
}

describe('rag-lab help', () => {
  it('ask and search: the --kb block says a BEIR folder and the default, --token-env only the token', async () => {
    for (const command of ['ask', 'search']) {
      const { code, stdout } = await runCli([command, '--help']);
      expect(code).toBe(0);
      const blocks = optionBlocks(stdout);
      expect(blocks.get('--kb')).toMatch(/BEIR folder with corpus\.jsonl/);
      expect(blocks.get('--kb')).toMatch(/default sotu/);
      expect(blocks.get('--token-env')).not.toMatch(/BEIR|corpus\.jsonl|default sotu/);
    }
  });

  it('the top-level help names PDF and HTML for build-index and explains the seeds', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    const buildIndex = stdout.split('\n').find((l) => l.trimStart().startsWith('build-index'));
    expect(buildIndex).toMatch(/PDF/);
    expect(buildIndex).toMatch(/HTML/);
    expect(stdout).toMatch(/Seed A \/ B \/ C/);
    expect(stdout).toMatch(/docs\/seeds\.md/);
    expect(existsSync(join(ROOT, 'docs/seeds.md'))).toBe(true);
  });
});
