import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(import.meta.dirname, '../..');

/** Scratch databases older than this are a run's that was stopped before its `drop()` (Ctrl-C). */
const staleScratchMs = 6 * 3_600_000;
let staleDropped: Promise<void> | undefined;

/**
 * A fresh database on the server DATABASE_URL names, dropped by `drop()`. Its name carries when it
 * was made (`<prefix>_s<seconds in base 36>_<random>`), so the first scratch database of a run also
 * drops those an interrupted run left, hours old.
 */
export async function scratchPgDatabase(prefix: string, options = ''): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL!;
  const name = `${prefix}_s${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(6).toString('hex')}`;
  const run = async (statement: string) => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    try {
      return await c.query(statement);
    } finally {
      await c.end();
    }
  };
  staleDropped ??= (async () => {
    const all = await run(`SELECT datname FROM pg_database WHERE datname ~ '^loupe_[a-z_]*_s[0-9a-z]+_[0-9a-f]{12}$'`).catch(() => undefined);
    for (const { datname } of (all?.rows ?? []) as { datname: string }[]) {
      const made = parseInt(/_s([0-9a-z]+)_[0-9a-f]{12}$/.exec(datname)![1]!, 36) * 1000;
      if (Date.now() - made > staleScratchMs) await run(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => undefined);
    }
  })();
  await staleDropped;
  await run(`CREATE DATABASE ${name} ${options}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Runs the admin CLI (`bin/loupe.js`) and parses its one JSON line. */
export async function loupeCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Record<string, string>> {
  const cli = spawn(process.execPath, [path.join(root, 'bin/loupe.js'), ...args], { env });
  let out = '';
  let err = '';
  cli.stdout.on('data', (d: Buffer) => (out += d.toString()));
  cli.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise((resolve) => cli.on('exit', resolve));
  if (code !== 0) throw new Error(`loupe ${args.join(' ')} exited ${code}: ${err}`);
  return JSON.parse(out) as Record<string, string>;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * The real entry point (`npm start`'s src/server.ts) as its own process, ready when /health
 * answers. `extraNodeArgs` go before the script (e.g. `--cpu-prof`).
 */
export async function startServerProcess(env: NodeJS.ProcessEnv, port: number, extraNodeArgs: string[] = []): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...extraNodeArgs, '--import', 'tsx', path.join(root, 'src/server.ts')], {
    // Models are not warmed unless asked: most process tests never send an image.
    env: { LOUPE_VISION_WARM: 'none', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  const url = `http://127.0.0.1:${port}`;
  // a child that ended is said at once, with its exit code (it was waited on for the whole minute, h222); a cold tsx
  // cache on a loaded machine (a fresh CI runner) takes longer than a minute to start, so two are given
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (code !== undefined) throw new Error(`server exited ${code} before it answered /health (its stderr is in the test's output)`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, child, exited };
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start within 120 s');
}

// below Linux's range for client sockets (32768–60999): a port there may be held by a connection, or one in
// TIME_WAIT, of any test running beside (PostgreSQL pools close many), and the server's listen fails
export const randomPort = (): number => 10000 + Math.floor(Math.random() * 22000);
