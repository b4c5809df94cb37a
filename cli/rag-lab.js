#!/usr/bin/env node
// Entry point of `npx rag-lab`: runs the TypeScript CLI through tsx, so the CLI uses the same src/lib as the app.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
