import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(import.meta.dirname, '../..');

/** A fresh database on the server DATABASE_URL names, dropped by `drop()`. */
export async function scratchPgDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL!;
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const run = async (statement: string) => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
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
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, child, exited };
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

export const randomPort = (): number => 20000 + Math.floor(Math.random() * 30000);
