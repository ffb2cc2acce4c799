import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface BenchServer {
  url: string;
  dataDir: string;
  databaseUrl: string | undefined;
  token: string;
  workspace: string;
  stop(): Promise<void>;
}

const root = path.resolve(import.meta.dirname, '..');

/** A throwaway PostgreSQL database on the server DATABASE_URL names. */
export async function scratchPg(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL!;
  const name = `loupe_bench_${randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const d = new pg.Client({ connectionString: base });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

/** Starts the real server (`npm start`'s entry) as its own process on a free port. */
export async function startServer(backend: 'sqlite' | 'postgres', env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-bench-'));
  const db = backend === 'postgres' ? await scratchPg() : undefined;
  const port = 20000 + Math.floor(Math.random() * 20000);
  const baseEnv = { ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: db?.url ?? '', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0', ...env };

  const cli = spawn(process.execPath, [path.join(root, 'bin/loupe.js'), 'account', 'create', '--name', 'bench', '--credits', '1000000'], { env: baseEnv });
  let out = '';
  cli.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => cli.on('exit', resolve));
  const account = JSON.parse(out) as { token: string; workspace: string };

  // BENCH_PROFILE=<dir> writes a V8 CPU profile of the server for each run.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', path.join(root, 'src/server.ts')], { env: baseEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 200) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dataDir,
    databaseUrl: db?.url,
    token: account.token,
    workspace: account.workspace,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
      await db?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
