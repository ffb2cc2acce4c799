import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { checkAnswerContract } from './answer-contract.ts';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config, type ConfigOverrides } from '../../src/config/config.ts';
import { scratchPgDatabase } from './processes.ts';

export type Backend = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when DATABASE_URL points at a server (CI sets it). */
export const backends: Backend[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestAccount {
  account: string;
  workspace: string;
  token: string;
}

export interface Harness {
  app: FastifyInstance;
  config: Config;
  backend: Backend;
  dataDir: string;
  account: TestAccount;
  newAccount(credits?: number, services?: string[]): Promise<TestAccount>;
  request(method: InjectOptions['method'], url: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string>; payload?: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

let staleFoldersRemoved: Promise<void> | undefined;

/** The data folders of runs stopped before their `close()` (Ctrl-C), untouched for 6 hours: removed once per test process. */
async function removeStaleFolders(): Promise<void> {
  const tmp = os.tmpdir();
  for (const name of await fs.readdir(tmp).catch(() => [] as string[])) {
    if (!/^loupe-test-[A-Za-z0-9]{6}$/.test(name)) continue;
    const dir = path.join(tmp, name);
    const stat = await fs.stat(dir).catch(() => undefined);
    if (stat?.isDirectory() && Date.now() - stat.mtimeMs > 6 * 3_600_000) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

export async function startHarness(backend: Backend, overrides: ConfigOverrides = {}): Promise<Harness> {
  await (staleFoldersRemoved ??= removeStaleFolders());
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-test-'));
  const pgDb = backend === 'postgres' ? await scratchPgDatabase('loupe_test') : undefined;
  const config = loadConfig({}, {
    dataDir,
    databaseUrl: pgDb?.url,
    logLevel: 'silent',
    rateLimit: { perSecond: 0, burst: 0 },
    // Inserts look for nothing beyond the descriptor unless a test asks (text search tests do):
    // objects, faces and OCR on every insert would slow the whole suite for nothing.
    seen: [],
    ...overrides,
  });
  const app = await buildApp(config);
  const newAccount = (credits = 100, services?: string[]) => app.loupe.accounts.createAccount({ name: 'test', credits, ...(services ? { services } : {}) });
  const account = await newAccount();
  return {
    app,
    config,
    backend,
    dataDir,
    account,
    newAccount,
    request: (method, url, options = {}) => {
      const headers: Record<string, string> = { ...options.headers };
      const token = options.token === undefined ? account.token : options.token;
      if (token !== null) headers.authorization = `Token ${token}`;
      if (options.body !== undefined) headers['content-type'] ??= 'application/json';
      // collectibles answers are checked against the OpenAPI document's typed record as every test reads them
      return app
        .inject({
          method,
          url,
          headers,
          ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : options.payload !== undefined ? { payload: options.payload } : {}),
        })
        .then((res) => {
          checkAnswerContract(app, method ?? 'GET', url, res);
          return res;
        });
    },
    close: async () => {
      await app.close();
      await pgDb?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A harness whose descriptors come from the tiny CLIP-family pack (test/helpers/tiny-clip.ts),
 * installed as `loupe models add` would: inserts take well under a millisecond, and text-to-image
 * search has a right answer. `close` also removes the pack's folders.
 */
export async function startTinyClipHarness(backend: Backend, overrides: ConfigOverrides = {}): Promise<Harness> {
  const { writeTinyClipPack } = await import('./tiny-clip.ts');
  const { installPack } = await import('../../src/vision/clip/clip-pack.ts');
  const dirs = [await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-tiny-clip-')), await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-pack-data-'))];
  const packDir = (await installPack(await writeTinyClipPack(dirs[0]!), dirs[1]!, { name: 'tiny' })).dir;
  const h = await startHarness(backend, { vision: { threads: 1, maxQueue: 64, taskTimeoutMs: 30_000, warm: [], embedder: '', clipPack: packDir }, ...overrides });
  return {
    ...h,
    close: async () => {
      await h.close();
      for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

export const cs = (p: string) => `/cardstream/v2/${p}`;

export async function createSession(h: Harness, body: Record<string, unknown> = {}, token?: string): Promise<string> {
  const res = await h.request('POST', cs('session/'), { body, ...(token ? { token } : {}) });
  if (res.statusCode !== 201) throw new Error(`session create failed: ${res.statusCode} ${res.body}`);
  return res.json().id as string;
}

/** Every file under a folder, recursively. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(path.join(entry.parentPath, entry.name));
  }
  return out;
}
