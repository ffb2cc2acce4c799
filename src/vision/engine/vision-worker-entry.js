// Entry of a vision worker thread. The server runs TypeScript through tsx's loader, which a worker
// started by vitest (or any host without `--import tsx`) does not inherit, so the worker
// registers it itself before loading the TypeScript handler. Registering twice is harmless.
import { register } from 'tsx/esm/api';

register();
const { handleTask } = await import('./vision-worker.ts');

export default handleTask;
