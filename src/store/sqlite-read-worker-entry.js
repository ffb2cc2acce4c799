// Entry of an SQLite read worker (sqlite-read-pool.ts). Like the vision workers' entry, it registers tsx's loader
// itself (a thread started under vitest does not inherit it) before loading TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./sqlite-read-worker.ts');
