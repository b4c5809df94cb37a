/** Builds the site once and serves dist/ under a sub-path on 127.0.0.1 for the browser tests. */
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build } from 'vite';
import { serveStatic } from '../helpers/static-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    siteUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const root = resolve(import.meta.dirname, '../..');
  await build({ root, logLevel: 'warn', build: { outDir: resolve(root, 'dist') } });
  const site = await serveStatic(resolve(root, 'dist'), '/spaces/rag-lab/');
  project.provide('siteUrl', site.url);
  return () => site.close();
}
