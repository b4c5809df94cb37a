import { mount } from 'svelte';
import App from './ui/App.svelte';
import { isolationSettled, type IsolationWindow } from './ui/app/isolation-wait.ts';
import './ui/app.css';

const target = document.getElementById('app');
if (!target) throw new Error('RAG Lab: #app element missing from index.html');
// On a first visit the isolation service worker may be about to reload the page: start after it (isolation-wait.ts).
void isolationSettled(window as unknown as IsolationWindow).then(() => mount(App, { target }));
