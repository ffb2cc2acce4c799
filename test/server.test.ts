import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import fsSync from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { loadConfig } from '../src/config/config.ts';
import { CREDIT_HOLD_MS } from '../src/services/account-service.ts';
import { openServices, type Services } from '../src/services/container.ts';
import { claimDataFolder } from '../src/store/data-folder-claim.ts';
import { loupeCli, randomPort, startServerProcess } from './helpers/processes.ts';

describe('server process', () => {
  let dataDir: string;
  let token: string;
  const port = randomPort();
  const env = () => ({ ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0' });
  const start = () => startServerProcess(env(), port);
  const base = `http://127.0.0.1:${port}/cardstream/v2`;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-server-'));
    token = (await loupeCli(env(), 'account', 'create', '--name', 'srv')).token!;
  });
  afterAll(async () => fs.rm(dataDir, { recursive: true, force: true }));

  it('shuts down gracefully on SIGTERM under load: no 500, exit 0, every acknowledged batch kept', async () => {
    const server = await start();
    const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
    const session = (await (await fetch(`${base}/session/`, { method: 'POST', headers, body: '{}' })).json()) as { id: string };

    const acknowledged: string[] = [];
    const statuses: number[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const ids = Array.from({ length: 50 }, (_, k) => `w${w}-b${i}-${k}`);
        try {
          const res = await fetch(`${base}/session/${session.id}/identifications/`, { method: 'POST', headers, body: JSON.stringify({ identifications: ids.map((event_id) => ({ event_id, name: 'Card' })) }) });
          statuses.push(res.status);
          if (res.status === 200) acknowledged.push(...ids);
        } catch {
          return; // connection refused or closed: the server is gone
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    // Under load for a while, and at least one batch in: on a slow machine 600 ms may not be.
    await new Promise((r) => setTimeout(r, 600));
    for (let i = 0; i < 400 && acknowledged.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    server.child.kill('SIGTERM');
    const code = await server.exited;
    stop = true;
    await Promise.all(writers);
    expect(code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);

    // Restart on the same data: every acknowledged row is there.
    const again = await start();
    try {
      const listed = new Set<string>();
      for (let page = 1; ; page++) {
        const body = (await (await fetch(`${base}/identification/?session=${session.id}&page_size=500&page=${page}`, { headers })).json()) as { results: Array<{ event_id: string }>; next: string | null };
        for (const r of body.results) listed.add(r.event_id);
        if (!body.next) break;
      }
      expect(acknowledged.filter((id) => !listed.has(id))).toEqual([]);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    }
  }, 240_000); // two server starts (each up to 120 s on a slow machine with a cold tsx cache) and a drain of up to 10 s

  it('npm start stops when npm alone is sent SIGTERM (a process manager that signals the pid it started): the server does not run on orphaned', async () => {
    const npmPort = randomPort();
    const fresh = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-npm-'));
    // its own process group, so a failing step below still ends npm and the server (a failed run left them serving)
    const npm = spawn('npm', ['start', '--silent'], { cwd: path.resolve(import.meta.dirname, '..'), env: { ...env(), LOUPE_DATA_DIR: fresh, LOUPE_VISION_WARM: 'none', PORT: String(npmPort), HOST: '127.0.0.1' }, stdio: 'ignore', detached: true });
    const up = async () => fetch(`http://127.0.0.1:${npmPort}/health`).then((r) => r.ok, () => false);
    try {
      for (let i = 0; i < 600 && !(await up()); i++) await new Promise((r) => setTimeout(r, 100));
      expect(await up()).toBe(true);
      // the media folder a first start makes is its owner's alone, as docs/operations.md "Files" says (it was 0755)
      expect(((await fs.stat(path.join(fresh, 'media'))).mode & 0o777).toString(8)).toBe('700');
      npm.kill('SIGTERM');
      let gone = false;
      for (let i = 0; i < 150 && !gone; i++) {
        await new Promise((r) => setTimeout(r, 100));
        gone = !(await up());
      }
      expect(gone).toBe(true);
      // and the data folder is free for the next start
      const next = await startServerProcess({ ...env(), LOUPE_DATA_DIR: fresh }, randomPort());
      next.child.kill('SIGTERM');
      expect(await next.exited).toBe(0);
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // the group has ended, as it should
      }
      await fs.rm(fresh, { recursive: true, force: true });
    }
  }, 120_000);

  it('with LOUPE_PAUSE_BACKGROUND runs no job: a restored backup checked does not run its jobs again (h104)', async () => {
    const flat = await sharp({ create: { width: 630, height: 880, channels: 3, background: '#d4a017' } }).jpeg().toBuffer();
    const body = JSON.stringify({ type: 'card-grader', endpoint: 'centering', records: [{ _base64: flat.toString('base64'), 'skip-location': true }] });
    const request = (server: { url: string }, id = '') =>
      fetch(`${server.url}/account/v2/request/${id}`, { method: id ? 'GET' : 'POST', headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, ...(id ? {} : { body }) }).then((r) => r.json() as Promise<{ id: string; status: string }>);
    const paused = await startServerProcess({ ...env(), LOUPE_PAUSE_BACKGROUND: '1', LOUPE_QUEUE_POLL_MS: '100' }, port);
    let id = '';
    try {
      id = (await request(paused)).id;
      await new Promise((r) => setTimeout(r, 2000));
      expect((await request(paused, id)).status).toBe('CREATED');
    } finally {
      paused.child.kill('SIGTERM');
      await paused.exited;
    }
    // started without it, the job runs
    const server = await startServerProcess({ ...env(), LOUPE_QUEUE_POLL_MS: '100' }, port);
    try {
      for (let i = 0; i < 300 && (await request(server, id)).status !== 'DONE'; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await request(server, id)).status).toBe('DONE');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 120_000);

  it("a call's charge is given back when its server is killed before the call answers (kill -9)", async () => {
    // a host that takes the connection and never answers keeps the call running
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const payer = await loupeCli(env(), 'account', 'create', '--name', 'payer', '--credits', '5');
    const server = await startServerProcess({ ...env(), LOUPE_URL_ALLOWLIST: '127.0.0.1' }, port);
    let services: Services | undefined;
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/card.jpg`;
      const call = fetch(`http://127.0.0.1:${port}/photo/v2/descriptor`, { method: 'POST', headers: { authorization: `Token ${payer.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: [{ _url: url }] }) }).catch(() => undefined);
      const db = new Database(path.join(dataDir, 'loupe.db'), { readonly: true });
      try {
        const held = () => db.prepare('SELECT count(*) AS n FROM credit_holds').get() as { n: number };
        for (let i = 0; i < 200 && held().n === 0; i++) await new Promise((r) => setTimeout(r, 50));
        expect(held().n).toBe(1);
      } finally {
        db.close();
      }
      server.child.kill('SIGKILL');
      await server.exited;
      await call;
      services = await openServices(loadConfig({ ...env(), LOUPE_DATA_DIR: dataDir } as NodeJS.ProcessEnv));
      expect((await services.accounts.getAccount(payer.account!)).credits).toBe(4);
      await services.queue.sweep(Date.now() + CREDIT_HOLD_MS + 1000);
      expect((await services.accounts.getAccount(payer.account!)).credits).toBe(5);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await services?.close();
      await new Promise((r) => silent.close(r));
    }
  }, 120_000);
});

describe('server process stopped while it starts', () => {
  it('a SIGTERM during the models\' warm-up waits for them and exits 0: no native abort (h205: exit 134)', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-early-stop-'));
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, '../src/server.ts')], {
      env: { ...process.env, LOUPE_DATA_DIR: dataDir, LOUPE_VISION_WARM: 'card,ocr', LOUPE_VISION_THREADS: '1', DATABASE_URL: '', PORT: String(randomPort()), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const sent = new Promise<void>((resolve) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        // the line logged just before the warm-up starts
        if (/"msg":"memory"|this machine allows/.test(out) && child.signalCode === null && !out.includes('shutting down')) {
          child.kill('SIGTERM');
          resolve();
        }
      });
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await sent;
      expect(await exited).toBe(0);
      expect(out).toContain('shutting down during the start');
      expect(out).not.toContain('Loupe is ready');
      // a new data folder is said as its database is made, before the warm-up (it came after "Loupe is ready", h330)
      expect(out).toContain('no database was in the data folder');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('server process that cannot start', () => {
  /** The server's exit code and what it wrote to stderr. */
  const failedStart = async (env: NodeJS.ProcessEnv) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, '../src/server.ts')], { env: { ...process.env, LOUPE_VISION_WARM: 'none', DATABASE_URL: '', PORT: String(randomPort()), HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, stderr };
  };

  it('says why in one line and exits 1: a setting of the wrong form, a media folder it cannot write', async () => {
    const bad = await failedStart({ LOUPE_DATA_DIR: os.tmpdir(), LOUPE_QUEUE_WORKERS: 'lots' });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^loupe: cannot start: .*LOUPE_QUEUE_WORKERS/)]);
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-unwritable-'));
    try {
      // a data folder that is a file: said so, naming the setting (it was a bare EEXIST from mkdir)
      await fs.writeFile(path.join(dataDir, 'a-file'), 'x');
      const file = await failedStart({ LOUPE_DATA_DIR: path.join(dataDir, 'a-file') });
      expect([file.code, file.stderr]).toEqual([1, `loupe: cannot start: the data folder ${path.join(dataDir, 'a-file')} (LOUPE_DATA_DIR) cannot be used: it is a file\n`]);
      const under = await failedStart({ LOUPE_DATA_DIR: path.join(dataDir, 'a-file', 'data') });
      expect([under.code, under.stderr]).toEqual([1, `loupe: cannot start: the data folder ${path.join(dataDir, 'a-file', 'data')} (LOUPE_DATA_DIR) cannot be used: a folder on its path is a file\n`]);
      await fs.rm(path.join(dataDir, 'a-file'));
      // a link to nowhere, and a folder where none can be made (it hung for ever under /proc, h274)
      await fs.symlink(path.join(dataDir, 'gone'), path.join(dataDir, 'link'));
      const link = await failedStart({ LOUPE_DATA_DIR: path.join(dataDir, 'link') });
      expect([link.code, link.stderr]).toEqual([1, `loupe: cannot start: the data folder ${path.join(dataDir, 'link')} (LOUPE_DATA_DIR) cannot be used: ${path.join(dataDir, 'link')} is a link to ${path.join(dataDir, 'gone')}, which does not exist\n`]);
      await fs.rm(path.join(dataDir, 'link'));
      if (process.platform === 'linux') {
        const proc = await failedStart({ LOUPE_DATA_DIR: '/proc/loupe-test/data' });
        expect([proc.code, proc.stderr]).toEqual([1, 'loupe: cannot start: the data folder /proc/loupe-test/data (LOUPE_DATA_DIR) cannot be used: /proc takes no new folders (a virtual file system such as /proc or /sys)\n']);
      }
      // the media folder's place taken by a file: the server would be "ready" and fail every upload
      await fs.writeFile(path.join(dataDir, 'media'), 'not a folder');
      const media = await failedStart({ LOUPE_DATA_DIR: dataDir });
      expect(media.code).toBe(1);
      expect(media.stderr).toMatch(/^loupe: cannot start: the media folder cannot be written \(E[A-Z]+\)/m);
      // a second server on a SQLite data folder another live server holds (here: this test's process)
      await fs.rm(path.join(dataDir, 'media'));
      const release = claimDataFolder(dataDir);
      try {
        const second = await failedStart({ LOUPE_DATA_DIR: dataDir });
        expect(second.code).toBe(1);
        expect(second.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^loupe: cannot start: another Loupe server \\(pid ${process.pid}\\) already serves`))]);
        expect((await fs.readFile(path.join(dataDir, 'server.pid'), 'utf8')).trim()).toBe(String(process.pid));
      } finally {
        release();
      }
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
    // eight server processes, each loading tsx: 46 s alone beside three helpers' work (load 7), past 60 s in a batch
  }, 150_000);

  it('a port in use is refused before the database is opened: nothing made, upgraded or run (h104)', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-port-'));
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const port = (taken.address() as AddressInfo).port;
      const start = await failedStart({ LOUPE_DATA_DIR: dataDir, PORT: String(port) });
      expect([start.code, start.stderr]).toEqual([1, `loupe: cannot start: port ${port} is in use on 127.0.0.1 (another server, or one still stopping): nothing was started\n`]);
      // no database was made (nor upgraded, nor its jobs run): it was so before the port was tried
      expect(fsSync.existsSync(path.join(dataDir, 'loupe.db'))).toBe(false);
      // a HOST that is not this machine's is named as the setting to change, before any database too (h330: it was the
      // socket's `listen EADDRNOTAVAIL: address not available 198.51.100.7:…`)
      const elsewhere = await failedStart({ LOUPE_DATA_DIR: dataDir, HOST: '198.51.100.7' });
      expect([elsewhere.code, elsewhere.stderr]).toEqual([1, 'loupe: cannot start: HOST 198.51.100.7 is not an address of this machine (EADDRNOTAVAIL): set HOST to one of its own addresses, 127.0.0.1 for this machine alone or 0.0.0.0 for every interface; nothing was started\n']);
      expect(fsSync.existsSync(path.join(dataDir, 'loupe.db'))).toBe(false);
    } finally {
      await new Promise((r) => taken.close(r));
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
