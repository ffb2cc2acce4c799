import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from './app.ts';
import { loadConfig } from './config/config.ts';
import { claimDataFolder } from './store/data-folder-claim.ts';
import { MOVED_TO_POSTGRES, sqliteFileOf } from './store/database.ts';
import { openToOthers } from './store/data-folder-modes.ts';
import { leftOverNotice } from './store/left-over-work.ts';
import { whenLauncherExits } from './util/launcher-watch.ts';
import { present } from './util/path-present.ts';
import { keepOnOutputErrors } from './util/log-output.ts';
import { listenRefusal } from './util/listen-refusal.ts';
import { idleMemoryEstimate, loadMemoryEstimate, memoryTight } from './vision/engine/memory-estimate.ts';
import { addressSpaceCap } from '../bin/address-space.mjs';

/** Resolves when `port` on `host` can be listened on now (it is then let go); rejects saying why not (EADDRINUSE, a HOST of another machine). */
function portFree(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(new Error(listenRefusal(err, port, host))));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

keepOnOutputErrors();

/** A start that cannot go on: one line saying why, exit 1 (not a stack trace, nor "ready" on a store it cannot write). */
function cannotStart(err: unknown): never {
  const message = (err as Error).message ?? String(err);
  // the WebAssembly runtime's reservation refused under an address-space cap (h225): said what to change
  const cap = /Cannot allocate Wasm memory|WebAssembly.*Out of memory/.test(message) ? addressSpaceCap() : null;
  const hint = cap !== null ? ` (the process may use ${Math.round(cap / 2 ** 30)} GB of address space, ulimit -v / prlimit --as; the vision workers' WebAssembly runtime reserves up to about 256 GB up front, not memory it uses: remove the cap and limit memory with a cgroup, docs/operations.md "Memory")` : '';
  process.stderr.write(`loupe: cannot start: ${message}${hint}\n`);
  process.exit(1);
}

const config = (() => {
  try {
    return loadConfig();
  } catch (err) {
    return cannotStart(err);
  }
})();
// One server per SQLite data folder (data-folder-claim.ts); released as the process ends, however it ends.
if (!config.databaseUrl) {
  try {
    const release = claimDataFolder(config.dataDir);
    process.on('exit', release);
  } catch (err) {
    cannotStart(err);
  }
}
// A data folder typed wrong starts on a new, empty database: said at start, so it is not taken for lost data.
const newDatabase = (() => {
  try {
    // a data folder this user may not read is said so, not taken for a new one (h274)
    return !config.databaseUrl && !present(sqliteFileOf(config.dataDir));
  } catch (err) {
    return cannotStart(err);
  }
})();
// …and one moved to PostgreSQL beside an SQLite database it leaves unused: its accounts looked lost (h82)
const unusedSqlite = config.databaseUrl !== undefined && fs.existsSync(sqliteFileOf(config.dataDir));
// A port in use is found before the database is opened: such a start upgraded the database under the node still
// serving it, and ran its jobs, before it failed to listen (h104).
await portFree(config.port, config.host).catch(cannotStart);
const app = await buildApp(config, { startQueue: false }).catch(cannotStart);
// said as the database is made, before the warm-up's lines (after "Loupe is ready" it read as an afterthought, h330)
if (newDatabase) app.log.warn({ dataDir: path.resolve(config.dataDir) }, 'no database was in the data folder: started a new, empty one (set LOUPE_DATA_DIR if your data is elsewhere)');

let closing = false;
// (declared before the top-level awaits below: the index load starts there, and a `let` further down is not yet made)
type LoadProgress = { collections: number; collectionsDone: number; records: number; recordsRead: number; ms: number; rebuilding?: { collection: string; inserted: number; of: number; reason: string } };
// a rebuild of a collection's graph (its saved index not usable) said apart from the read: the records read stood at
// every record through all of it (h362)
const said = (p: LoadProgress) => ({
  collections: `${p.collectionsDone}/${p.collections}`,
  records: `${p.recordsRead}/${p.records}`,
  ...(p.rebuilding ? { rebuilding: { collection: p.rebuilding.collection, vectors: `${p.rebuilding.inserted}/${p.rebuilding.of}`, reason: p.rebuilding.reason } } : {}),
  ms: p.ms,
});
let loadStoppedSaid = false;
/** From the port's opening until the index load's end (server.ts's last function). */
let loadRunning = false;
/** Once, from whichever comes first: the load's end, or the stop's (which exits before the load's end is reached). */
function sayLoadStopped(p: LoadProgress | undefined): void {
  if (loadStoppedSaid) return;
  loadStoppedSaid = true;
  app.log.info(p ? said(p) : {}, 'collection indexes: loading stopped by the shutdown');
}
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  // a stop before the port opened waits for the models still loading (a worker stopped inside a native load aborts the
  // process: exit 134, h205), for as long as a model load may take
  const starting = !app.server.listening;
  app.log.info({ signal }, starting ? 'shutting down during the start: letting the vision workers finish loading their models first' : 'shutting down: finishing requests in flight');
  // A shutdown that hangs ends the process anyway, saying so: the requests still running get no
  // answer (their clients see the connection close), and what they held is given back by the next
  // start's sweeps (credit holds within the hour, unfinished uploads' files).
  const force = setTimeout(() => {
    if (starting) {
      app.log.error('stopped during the start: the vision workers had not finished loading their models within 2 minutes (exit 1)');
      process.exit(1);
    }
    const handlers = app.loupe.inFlight.count;
    // with no handler running, what held the stop was a request body still arriving (a slow upload): said so
    app.log.error({ inFlight: handlers }, handlers ? `stopped after 15 s with ${handlers} request(s) still running: cut off unanswered (exit 1)` : 'stopped after 15 s with a request still arriving (an upload whose body was not all sent): cut off unanswered, nothing of it stored (exit 1)');
    process.exit(1);
  }, starting ? 125_000 : 15_000);
  force.unref();
  // Keep-alive sockets become idle only after their last response; close them as they do,
  // instead of waiting out the keep-alive timeout.
  const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
  sweep.unref();
  try {
    await app.close();
    // a load cut short says so before the process ends: its own line (below) came after the exit, never written (h359)
    if (loadRunning && !config.databaseUrl) sayLoadStopped(app.loupe.collections.indexProgress());
    // the last line says the stop ended (h260: "finishing requests in flight" was the last word)
    app.log.info('stopped (exit 0)');
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
whenLauncherExits(() => void shutdown('npm exited'));

// What the machine or its cgroup allows, said before the warm-up: over a cgroup's cap the kernel ends the process
// (exit 137) with nothing in this log, and a small machine's default start died so, its log empty (h202).
{
  const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : undefined;
  const limit = Math.min(constrained && constrained > 0 ? constrained : Infinity, os.totalmem());
  const estimate = idleMemoryEstimate(config.vision.threads, config.vision.warm);
  const underLoad = loadMemoryEstimate(config.vision.threads, config.vision.warm);
  const gb = (n: number) => Math.round(n / 1e8) / 10;
  // under load too: a 1-GiB box's default start passed the idle check and was killed by its first burst (h225)
  if (memoryTight(limit, config.vision.threads, config.vision.warm)) {
    app.log.warn({ memoryLimitGB: gb(limit), idleEstimateGB: gb(estimate), loadEstimateGB: gb(underLoad), threads: config.vision.threads, warm: config.vision.warm }, `this machine allows ${gb(limit)} GB and ${config.vision.threads} vision worker(s) warming ${config.vision.warm.join(',') || 'nothing'} idle at about ${gb(estimate)} GB and about ${gb(underLoad)} GB under load: set LOUPE_VISION_THREADS=1 and LOUPE_VISION_WARM=card,ocr or none (docs/operations.md "Memory"); over the limit the kernel ends the process with nothing in this log`);
  } else app.log.info({ memoryLimitGB: gb(limit), idleEstimateGB: gb(estimate), loadEstimateGB: gb(underLoad) }, 'memory');
}
// Models load and run once on every worker before the port opens, so the first requests are as
// fast as the rest and a broken model install fails the start, not a request.
const warm = await app.loupe.vision.start().catch(async (err: unknown) => {
  await app.close().catch(() => undefined);
  return cannotStart(err);
});
// a stop that came during the warm-up ends the process from shutdown(): the start goes no further
const stopping = (): Promise<never> | undefined => (closing ? new Promise<never>(() => undefined) : undefined);
await stopping();
app.log.info({ threads: config.vision.threads, models: config.vision.warm, ms: warm.ms }, 'vision workers ready');
if (config.vision.warm.length) {
  const t0 = performance.now();
  try {
    await app.loupe.recognition.warm();
    app.log.info({ ms: Math.round(performance.now() - t0) }, 'recognition ready');
  } catch (err) {
    // a warm-up is no reason to refuse to start: the first scan then loads what failed, and says why
    app.log.warn({ err }, 'recognition warm-up failed; the first scan will load its catalogs');
  }
}
await stopping();
await app.listen({ port: config.port, host: config.host }).catch(async (err: unknown) => {
  await app.close().catch(() => undefined);
  return cannotStart(err);
});
app.log.info({ dataDir: config.dataDir, backend: config.databaseUrl ? 'postgres' : 'sqlite' }, 'Loupe is ready');
void loadCollectionIndexes();
// what a stop without a clean shutdown (kill -9, a power cut) left, said once, so the on-call person knows what the
// sweeps and workers are about to do (h96: a restart said only "job taken up again")
// (counted before the queue's workers start: counted after, the jobs they had already taken up were missing, h104)
{
  const left = await app.loupe.leftOverWork().catch(() => undefined);
  const notice = left && leftOverNotice(left);
  if (notice) app.log[notice.level](left, notice.message);
}
if (config.pauseBackground) app.log.warn('LOUPE_PAUSE_BACKGROUND: no job is run, no webhook delivered, nothing swept (a restored backup being checked); start without it to resume them');
// (not once a stop began during the start: it would run jobs while the stores close)
else if (!closing) app.loupe.startQueue();
if (config.queue.workers === 0) app.log.warn('LOUPE_QUEUE_WORKERS=0: this process runs no asynchronous jobs; they wait for `loupe worker` processes');
// a mistyped folder shows here, not as every `_file` record's "the file does not exist"
if (config.fileRoot && !fs.existsSync(config.fileRoot)) app.log.warn({ fileRoot: config.fileRoot }, 'LOUPE_FILE_ROOT does not exist: `_file` records are refused until it does');
for (const open of openToOthers(config.dataDir, !config.databaseUrl)) app.log.warn({ path: open.path, mode: open.mode }, `readable by other users of this machine (a folder made by hand, or files a release before 2026-11-30 wrote): chmod ${open.dir ? '700' : '600'} it (docs/operations.md "Files")`);
if (unusedSqlite) {
  app.log.warn(
    { file: path.resolve(sqliteFileOf(config.dataDir)) },
    fs.existsSync(path.join(config.dataDir, MOVED_TO_POSTGRES))
      ? 'the data folder holds the SQLite database `loupe move-to-postgres` moved to PostgreSQL (its MOVED-TO-POSTGRES file says where and when): unused while DATABASE_URL is set; remove loupe.db once this deployment is checked'
      : 'the data folder holds an SQLite database this server does not use: DATABASE_URL names the database; its accounts, sessions and collections are not in PostgreSQL unless moved there with `loupe move-to-postgres` (docs/operations.md, "Moving to PostgreSQL")',
  );
}
// (a database damaged where its accounts are, h190: the start ended here on an unhandled error, after "ready")
const accounts = await app.loupe.accounts.listAccounts().catch((err: unknown) => {
  app.log.error({ err }, 'the accounts could not be read: is the database file damaged? Stop the server and restore a backup (docs/operations.md "Backups")');
  return undefined;
});
// the command as it must be typed for this server: the CLI reads ./data from the folder it runs in (h260: run as hinted
// beside a server on another data folder, it made a database of its own, and the token was refused)
if (accounts?.length === 0) {
  const where = config.databaseUrl ? 'DATABASE_URL=<this server\'s> ' : path.resolve(config.dataDir) !== path.resolve('data') || process.env.LOUPE_DATA_DIR ? `LOUPE_DATA_DIR=${/[\s'"$`\\]/.test(path.resolve(config.dataDir)) ? `'${path.resolve(config.dataDir).replaceAll("'", "'\\''")}'` : path.resolve(config.dataDir)} ` : '';
  app.log.info(`no accounts yet: create one with \`${where}npx loupe account create --name <name>\` run from ${process.cwd()} (README, "Admin CLI")`);
}


/**
 * The embedded backend's collection indexes, read once the port is open (h353): read before it, 100,000 records kept a
 * restarted server's port closed about 8 s, sessions, the console and /health waiting with the searches. A search of
 * a collection not read yet starts its read and waits for it (at most 30 s, then 503 `index_loading` with
 * Retry-After); ping says how far its collection is. Said at the start, every 5 s, and at the end. PostgreSQL holds
 * its own indexes: nothing is read there, and nothing said.
 */
async function loadCollectionIndexes(): Promise<void> {
  const embedded = !config.databaseUrl;
  loadRunning = true;
  let ticker: NodeJS.Timeout | undefined;
  try {
    const indexes = await app.loupe.collections.loadIndexes({
      stopped: () => closing,
      progress: (p) => {
        if (!embedded || p.collectionsDone || !p.collections) return;
        app.log.info(said(p), 'collection indexes loading, after the port opened: a search of a collection not loaded yet waits for it (at most 30 s, then 503 index_loading)');
        ticker = setInterval(() => {
          const now = app.loupe.collections.indexProgress();
          if (now?.state === 'loading') app.log.info(said(now), now.rebuilding ? "collection indexes loading: rebuilding a collection's vector index (its saved file not usable)" : 'collection indexes loading');
        }, 5000);
        ticker.unref();
      },
    });
    const done = app.loupe.collections.indexProgress();
    if (closing) sayLoadStopped(done);
    else if (embedded && (indexes.collections || indexes.removed)) app.log.info({ ...indexes, ...(done ? { records: done.records, ms: done.ms } : {}) }, 'collection indexes loaded');
    if (indexes.failed && !closing) app.log.warn({ failed: indexes.failed }, 'collection indexes: some could not be loaded; each is tried again by its first search, which says why');
  } catch (err) {
    // (the database away, the folder unreadable): each collection then loads on its first search, which says why
    if (!closing) app.log.warn({ err }, 'collection indexes not loaded at start; each loads on its first search');
  } finally {
    loadRunning = false;
    clearInterval(ticker);
  }
}
