/**
 * How the page is wired (docs/internals/ui.md, "Wiring"): states get their dependencies through their constructors
 * in src/ui/state/app.ts `createApp`, components take them from src/ui/context.ts. No hook is assigned after
 * construction (`kb.onOpened = …` in App.svelte) and no state class writes into another's fields (`kb.modelsPort = …`
 * in ModelsState's constructor), so the dependency graph reads from the constructors.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const UI = join(import.meta.dirname, '../../src/ui');
const read = (path: string) => readFileSync(join(UI, path), 'utf8');
const scriptOf = (svelte: string) => svelte.slice(svelte.indexOf('<script'), svelte.indexOf('</script>'));
/** `name.field = …` or `name.a.b = …` (not `==`, not `this.field = …`). */
const writesInto = (code: string, names: readonly string[]) => names.flatMap((name) => [
  ...code.matchAll(new RegExp(`(?:^|[^\\w.$])(?:this\\.)?${name}\\.[\\w$.]+\\s*=(?!=)`, 'gm')),
].map((m) => m[0].trim()));

describe('the page wiring', () => {
  test('App.svelte builds the states through createApp and sets no field of any of them', () => {
    const script = scriptOf(read('App.svelte'));
    expect(script).toContain('createApp(');
    expect(script).not.toMatch(/new \w+State\(/);
    expect([...script.matchAll(/^\s*[A-Za-z_$][\w$]*\.[\w$.]+\s*=(?!=)/gm)].map((m) => m[0].trim())).toEqual([]);
  });

  test('createApp passes dependencies to constructors and assigns no hook afterwards', () => {
    const app = read('state/app.ts');
    expect([...app.matchAll(/^\s*[A-Za-z_$][\w$]*\.[\w$.]+\s*=(?!=)/gm)].map((m) => m[0].trim())).toEqual([]);
    const names = [...app.matchAll(/const (\w+)(?:: \w+)? = new \w+State\(/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(15);
    // No closure handed to a constructor writes a state's field either (`onProblem: (m) => { localKbs.error = m; }`).
    expect(writesInto(app, names)).toEqual([]);
  });

  test('no state class writes into the fields of a state it was given', () => {
    const dir = join(UI, 'state');
    const found: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.svelte.ts'))) {
      const code = readFileSync(join(dir, file), 'utf8');
      // The constructor's parameters typed as a state (`private readonly kb: KbState`, `{ settings, kb }: ModelsDeps`).
      const ctor = code.match(/constructor\(([\s\S]*?)\)\s*\{/)?.[1] ?? '';
      const params = [...ctor.matchAll(/(\w+)\??:\s*\w*State\b/g)].map((m) => m[1]!);
      const destructured = ctor.match(/^\s*\{([^}]*)\}\s*:\s*\w+Deps/)?.[1]?.split(',').map((s) => s.split('=')[0]!.trim()).filter(Boolean) ?? [];
      for (const hit of writesInto(code, [...params, ...destructured])) found.push(`${file}: ${hit}`);
    }
    expect(found).toEqual([]);
  });

  test('components get the page states from context.ts', () => {
    const context = read('context.ts');
    expect(context).toMatch(/createContext<App>\(\)/);
    expect(context.split('\n').length).toBeLessThanOrEqual(15);
    const tab = scriptOf(read('components/SearchTab.svelte'));
    expect(tab).toContain('getApp()');
    expect(tab).not.toContain('$props()');
  });
});
