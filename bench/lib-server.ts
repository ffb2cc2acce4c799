import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loupeCli, randomPort, scratchPgDatabase, startServerProcess } from '../test/helpers/processes.ts';

export interface BenchServer {
  url: string;
  dataDir: string;
  databaseUrl: string | undefined;
  token: string;
  account: string;
  workspace: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the real server as its own process on a fresh data folder or database, with one account. */
export async function startServer(backend: 'sqlite' | 'postgres', env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-bench-'));
  const db = backend === 'postgres' ? await scratchPgDatabase('loupe_bench') : undefined;
  const baseEnv = { ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: db?.url ?? '', LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0', ...env };
  const account = await loupeCli(baseEnv, 'account', 'create', '--name', 'bench', '--credits', '1000000');
  // BENCH_PROFILE=<dir> writes a V8 CPU profile of the server for each run.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const server = await startServerProcess(baseEnv, randomPort(), profile);
  return {
    url: server.url,
    dataDir,
    databaseUrl: db?.url,
    token: account.token!,
    account: account.account!,
    workspace: account.workspace!,
    pid: server.child.pid!,
    stop: async () => {
      server.child.kill('SIGTERM');
      await server.exited;
      await db?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
