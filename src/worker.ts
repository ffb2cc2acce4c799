import { loadConfig } from './config/config.ts';
import { openServices } from './services/container.ts';
import { whenLauncherExits } from './util/launcher-watch.ts';

/**
 * `loupe worker`: queue workers as their own process (scale-out). It runs jobs, delivers
 * webhooks and sweeps expired requests against the same database as the API nodes; with
 * PostgreSQL it wakes on NOTIFY, with SQLite it polls. Logs are JSON lines on stdout.
 */
export async function runWorker(): Promise<void> {
  const config = loadConfig();
  const log = (level: 'info' | 'warn' | 'error', msg: string, details: Record<string, unknown> = {}) =>
    process.stdout.write(`${JSON.stringify({ level, time: new Date().toISOString(), pid: process.pid, msg, ...details })}\n`);
  if (config.queue.workers <= 0) throw new Error('LOUPE_QUEUE_WORKERS is 0: a worker process needs at least one job slot');
  const services = await openServices(config, { longRunning: true, log });
  services.queue.runner.on('done', (id: string) => log('info', 'job done', { id }));
  services.queue.start();
  log('info', 'worker ready', { backend: config.databaseUrl ? 'postgres' : 'sqlite', workers: config.queue.workers });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log('info', 'stopping: finishing running jobs', { signal });
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await services.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  whenLauncherExits(() => void stop('npm exited'));
}

if (import.meta.url === `file://${process.argv[1]}`) await runWorker();
