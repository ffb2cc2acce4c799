import fs from 'node:fs';
import os from 'node:os';
import { loadConfig } from './config/config.ts';
import { sqliteFileOf } from './store/database.ts';
import { openServices } from './services/container.ts';
import { whenLauncherExits } from './util/launcher-watch.ts';
import { keepOnOutputErrors } from './util/log-output.ts';

/**
 * `loupe worker`: queue workers as their own process (scale-out). It runs jobs, delivers
 * webhooks and sweeps expired requests against the same database as the API nodes; with
 * PostgreSQL it wakes on NOTIFY, with SQLite it polls. Logs are JSON lines on stdout.
 */
export async function runWorker(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  keepOnOutputErrors();
  const loaded = loadConfig(env);
  // the server's lines as pino writes them (level number, epoch milliseconds, pid, hostname), so one log
  // pipeline reads both; LOG_LEVEL applies as it does there
  const levels = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
  const least = levels[loaded.logLevel as keyof typeof levels] ?? 30;
  const host = os.hostname();
  const log = (level: 'info' | 'warn' | 'error', msg: string, details: Record<string, unknown> = {}) => {
    if (levels[level] >= least) process.stdout.write(`${JSON.stringify({ level: levels[level], time: Date.now(), pid: process.pid, hostname: host, ...details, msg })}\n`);
  };
  // 0 is the API servers' setting (jobs left to workers), often in an environment file both share
  const config = loaded.queue.workers > 0 ? loaded : { ...loaded, queue: { ...loaded.queue, workers: 2 } };
  if (loaded.queue.workers <= 0) log('warn', 'LOUPE_QUEUE_WORKERS is 0, the API servers\' setting: this worker runs 2 jobs at once', {});
  // a mistyped data folder would run jobs against a new, empty database, quietly
  if (!config.databaseUrl && !fs.existsSync(sqliteFileOf(config.dataDir))) log('warn', 'no database was in the data folder: started a new, empty one (set LOUPE_DATA_DIR to the server\'s data folder)', { dataDir: config.dataDir });
  // servers and workers started at once on a new database (a first deploy, `docker compose up`): the servers make it,
  // the worker waits for them, a minute by default (h154: workers that took the lock first found no schema and exited)
  const waitText = env.LOUPE_WORKER_WAIT_S ?? '60';
  if (!/^\d{1,5}$/.test(waitText)) throw new Error(`LOUPE_WORKER_WAIT_S must be a whole number of seconds, got "${waitText}"`);
  const waitS = Number(waitText);
  const services = await (async () => {
    for (const until = Date.now() + waitS * 1000, said = { waiting: false }; ; ) {
      try {
        return await openServices(config, { longRunning: true, log, create: false });
      } catch (err) {
        // PostgreSQL only: an embedded database's folder holds one or not (a mistyped folder waited for nothing, h156)
        if (!config.databaseUrl || !/^no Loupe database here/.test((err as Error).message) || Date.now() >= until) throw err;
        if (!said.waiting) log('info', `no Loupe database yet: waiting up to ${waitS} s for a server to make it (LOUPE_WORKER_WAIT_S)`, {});
        said.waiting = true;
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  })();
  // an upgrade says what it did, as the server's start does (a new database's first migrations are its making)
  const migrated = services.store.migrated ?? [];
  if (migrated.length && migrated[0] !== '001-initial') log('info', 'database upgraded', { migrations: migrated });
  services.queue.runner.on('done', (id: string) => log('info', 'job done', { id }));
  services.queue.start();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log('info', 'stopping: finishing running jobs', { signal });
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await services.close();
    // the last line says the stop ended, as the server's does (h330: "stopping: finishing running jobs" was the last word)
    log('info', 'stopped (exit 0)');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  whenLauncherExits(() => void stop('npm exited'));
  // said once the signals are ours: a SIGTERM sent on this line (a supervisor, the test waiting for it) found Node's
  // default handling in the moment before, and the worker died by the signal with no stop and no last line
  log('info', 'worker ready', { backend: config.databaseUrl ? 'postgres' : 'sqlite', workers: config.queue.workers });
}

// run as a file (`node src/worker.ts`, docs/queue.md): a start that fails says why in one line, as `loupe worker` does
if (import.meta.url === `file://${process.argv[1]}`) {
  await runWorker().catch((err: unknown) => {
    process.stderr.write(`loupe: cannot start the worker: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
