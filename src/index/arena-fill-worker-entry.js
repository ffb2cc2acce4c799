// Entry of an arena fill worker (arena-fill.ts). Like the SQLite read workers' entry, it registers tsx's loader itself
// (a thread started under vitest does not inherit it) before loading TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./arena-fill-worker.ts');
