/**
 * How UI state reaches components: App.svelte builds the page's states once (state/app.ts `createApp`) and sets
 * them here; a component takes the ones it uses with `getApp()` (`const { kb, search } = getApp();`). Props stay for
 * what differs between uses of a component (a report, a feature's notices, a callback).
 */
import { createContext } from 'svelte';
import type { App } from './state/app.ts';

export const [getApp, setApp] = createContext<App>();
