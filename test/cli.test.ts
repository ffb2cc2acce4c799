import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { backends } from './helpers/harness.ts';
import { scratchPgDatabase } from './helpers/processes.ts';
import { loupeInProcess as inProcess } from './helpers/cli.ts';

const run = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../bin/loupe.js');


describe.each(backends)('admin CLI (%s)', (backend) => {
  let dataDir: string;
  let db: { url: string; drop(): Promise<void> } | undefined;
  const databaseUrl = () => db?.url ?? '';
  const env = () => ({ ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: databaseUrl() });
  const loupe = async (...args: string[]) => {
    const { code, stdout, stderr } = await inProcess(env(), args);
    expect(code, `loupe ${args.join(' ')}: ${stderr}`).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines, `one JSON line from: loupe ${args.join(' ')}`).toHaveLength(1);
    return JSON.parse(lines[0]!);
  };
  const fails = async (...args: string[]) => {
    const r = await inProcess(env(), args);
    if (r.code === 0) throw new Error(`loupe ${args.join(' ')} should have failed`);
    return r;
  };
  /** The binary itself, as an operator runs it: its exit code and streams. */
  const failsAsProcess = async (...args: string[]) => {
    try {
      await run(process.execPath, [bin, ...args], { env: env() });
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
    throw new Error(`loupe ${args.join(' ')} should have failed`);
  };

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-'));
    if (backend === 'postgres') db = await scratchPgDatabase('loupe_cli');
  });
  afterAll(async () => {
    await db?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  // as root a folder is never closed to this process: the command runs as nobody (setpriv), as an operator's other login
  const otherUser = process.getuid?.() === 0 ? (existsSync('/usr/bin/setpriv') ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : undefined) : [];
  it.skipIf(backend === 'postgres' || otherUser === undefined || process.platform === 'win32')('says a data folder this user may not read is not readable, not that it holds no database (h274)', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-closed-'));
    try {
      await loupe('account', 'create', '--name', 'closed');
      await fs.cp(dataDir, folder, { recursive: true });
      await fs.chmod(folder, 0o700);
      if (otherUser!.length === 0) await fs.chmod(folder, 0o000);
      const [cmd, ...pre] = otherUser!.length ? otherUser! : [process.execPath];
      // and the worker, which said it as a stack trace (h278)
      for (const command of [['account', 'list'], ['worker']]) {
        const args = otherUser!.length ? [...pre, process.execPath, bin, ...command] : [bin, ...command];
        const res = await run(cmd!, args, { env: { ...process.env, HOME: os.tmpdir(), LOUPE_DATA_DIR: folder, DATABASE_URL: '' } }).then(
          () => ({ code: 0, stderr: '' }),
          (err: { code: number; stderr: string }) => err,
        );
        expect(res.code, command.join(' ')).toBe(1);
        expect(res.stderr).toMatch(/^loupe: .*loupe-cli-closed-.* cannot be read by this user .*run loupe as the user the server runs as[^\n]*\n$/);
        expect(res.stderr).not.toContain('no database');
      }
    } finally {
      await fs.chmod(folder, 0o700);
      await fs.rm(folder, { recursive: true, force: true });
    }
  }, 60_000);

  it.skipIf(backend === 'postgres')('reads nothing from a data folder with no database, and says so when a write makes one', async () => {
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-typo-'));
    try {
      const list = await inProcess({ ...env(), LOUPE_DATA_DIR: path.join(elsewhere, 'dtaa') }, ['account', 'list']);
      expect(list.code).toBe(1);
      expect(list.stderr).toMatch(/^loupe: no database in .*dtaa: nothing to read\. Set LOUPE_DATA_DIR to the server's data folder/);
      await expect(fs.access(path.join(elsewhere, 'dtaa', 'loupe.db'))).rejects.toThrow();
      // nor does an upgrade run on the wrong folder make one to "upgrade"
      const migrate = await inProcess({ ...env(), LOUPE_DATA_DIR: path.join(elsewhere, 'dtaa') }, ['migrate']);
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toMatch(/^loupe: no database in .*dtaa: nothing to upgrade\./);
      await expect(fs.access(path.join(elsewhere, 'dtaa', 'loupe.db'))).rejects.toThrow();
      // a command that makes the database, missing what it needs, is a usage error that makes nothing (h260)
      const bare = await inProcess({ ...env(), LOUPE_DATA_DIR: path.join(elsewhere, 'dtaa') }, ['account', 'create']);
      expect([bare.code, bare.stderr]).toEqual([2, expect.stringMatching(/^loupe: missing --name/)]);
      await expect(fs.access(path.join(elsewhere, 'dtaa'))).rejects.toThrow();
      const made = await inProcess({ ...env(), LOUPE_DATA_DIR: path.join(elsewhere, 'dtaa') }, ['account', 'create', '--name', 'x']);
      expect(made.code).toBe(0);
      expect(made.stderr).toMatch(/^loupe: no database in .*dtaa: making a new, empty one/);
      // the next command finds it and says nothing
      expect((await inProcess({ ...env(), LOUPE_DATA_DIR: path.join(elsewhere, 'dtaa') }, ['account', 'list'])).stderr).toBe('');
    } finally {
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
  });

  it.skipIf(backend === 'postgres')('backs up the data folder into a new one a server starts from: the database, media and secret, no indexes', async () => {
    const { account } = await loupe('account', 'create', '--name', 'backed up');
    await fs.mkdir(path.join(dataDir, 'media', 'sessions'), { recursive: true });
    await fs.writeFile(path.join(dataDir, 'media', 'sessions', 'a.jpg'), 'jpeg bytes');
    // a folder moved to another disk and linked back is copied, not linked to
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-linked-'));
    await fs.writeFile(path.join(elsewhere, 'pack.onnx'), 'model bytes');
    await fs.symlink(elsewhere, path.join(dataDir, 'models'));
    await fs.mkdir(path.join(dataDir, 'indexes'), { recursive: true });
    await fs.writeFile(path.join(dataDir, 'indexes', 'c.usearch'), 'rebuilt from the database');
    const to = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-backup-')), 'copy');
    try {
      const done = await loupe('backup', '--to', to);
      expect(done).toMatchObject({ to });
      expect(done.database_bytes).toBeGreaterThan(0);
      expect(await fs.readFile(path.join(to, 'media', 'sessions', 'a.jpg'), 'utf8')).toBe('jpeg bytes');
      expect((await fs.stat(path.join(to, 'loupe.db'))).mode & 0o777).toBe(0o600);
      await expect(fs.access(path.join(to, 'indexes'))).rejects.toThrow();
      expect((await fs.lstat(path.join(to, 'models'))).isSymbolicLink()).toBe(false);
      expect(await fs.readFile(path.join(to, 'models', 'pack.onnx'), 'utf8')).toBe('model bytes');
      const listed = await inProcess({ ...env(), LOUPE_DATA_DIR: to }, ['account', 'show', '--account', account]);
      expect(JSON.parse(listed.stdout)).toMatchObject({ name: 'backed up' });
      // a finished backup holds no marker; one stopped part way keeps it, and nothing opens such a folder
      await expect(fs.access(path.join(to, 'BACKUP-UNFINISHED'))).rejects.toThrow();
      const stopped = path.join(path.dirname(to), 'stopped');
      await fs.cp(to, stopped, { recursive: true });
      await fs.writeFile(path.join(stopped, 'BACKUP-UNFINISHED'), 'not finished');
      const refused = await inProcess({ ...env(), LOUPE_DATA_DIR: stopped }, ['account', 'show', '--account', account]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/is a backup that did not finish .*Make the backup again/);
      // never over an earlier backup, nor inside the folder it copies
      expect((await fails('backup', '--to', to)).stderr).toMatch(/is not empty: back up into a new or empty folder/);
      // a retry into a folder its own attempt left unfinished says so (h109)
      expect((await fails('backup', '--to', stopped)).stderr).toMatch(/holds a backup that did not finish \(its BACKUP-UNFINISHED file/);
      // a file that is no database is said so, not taken for a permissions problem (h109)
      const junk = path.join(path.dirname(to), 'junk');
      await fs.mkdir(junk);
      await fs.writeFile(path.join(junk, 'loupe.db'), 'this is not a database, just some text that is long enough '.repeat(20));
      expect((await inProcess({ ...env(), LOUPE_DATA_DIR: junk }, ['account', 'list'])).stderr).toMatch(/the file is not an SQLite database/);
      expect((await fails('backup', '--to', path.join(dataDir, 'bk'))).stderr).toMatch(/outside the data folder/);
      expect((await fails('backup')).code).toBe(2);
    } finally {
      await fs.rm(path.dirname(to), { recursive: true, force: true });
      await fs.rm(path.join(dataDir, 'models'), { force: true });
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
  });

  it.skipIf(backend === 'postgres')('upgrades a database an earlier release made only with `loupe migrate`: other commands refuse it, touching nothing', async () => {
    const older = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-older-'));
    try {
      const olderEnv = { ...env(), LOUPE_DATA_DIR: older };
      expect((await inProcess(olderEnv, ['account', 'create', '--name', 'shop'])).code).toBe(0);
      const { default: SQLite } = await import('better-sqlite3');
      const raw = new SQLite(path.join(older, 'loupe.db'));
      raw.exec(`ALTER TABLE collection_records DROP COLUMN hash; DELETE FROM loupe_migrations WHERE name = '014-record-hashes'`);
      raw.close();
      const list = await inProcess(olderEnv, ['account', 'list']);
      expect(list.code).toBe(1);
      expect(list.stderr).toMatch(/needs upgrading \(migration 014-record-hashes\).*loupe migrate/);
      // not under a server still running on the folder (h160: it ran beside the old release's server)
      const { claimDataFolder } = await import('../src/store/data-folder-claim.ts');
      const release = claimDataFolder(older);
      const refused = await inProcess(olderEnv, ['migrate']);
      release();
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/already serves .*; stop it before upgrading \(docs\/upgrades.md, "To upgrade"\)/)]);
      const migrated = await inProcess(olderEnv, ['migrate']);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(JSON.parse(migrated.stdout)).toEqual({ migrated: true, applied: ['014-record-hashes'] });
      // up to date under a running server: nothing to do, said so (h162: a deploy script's migrate failed)
      const held = claimDataFolder(older);
      const idle = await inProcess(olderEnv, ['migrate']);
      held();
      expect([idle.code, JSON.parse(idle.stdout)]).toEqual([0, { migrated: true, applied: [] }]);
      expect(JSON.parse((await inProcess(olderEnv, ['account', 'list'])).stdout).accounts).toHaveLength(1);
    } finally {
      await fs.rm(older, { recursive: true, force: true });
    }
  });

  it('on PostgreSQL, a command run away from the data folder makes no data folder or signing secret (h207)', async () => {
    if (backend !== 'postgres') return;
    await loupe('migrate');
    const away = path.join(os.tmpdir(), `loupe-away-${process.pid}-${Date.now()}`, 'data');
    const r = await inProcess({ ...env(), LOUPE_DATA_DIR: away }, ['account', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(away)).toBe(false);
  });

  it('says which database failed and what to do when SQLite refuses, not SQLite\'s bare words (h267)', async () => {
    if (backend !== 'sqlite') return;
    const own = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-damaged-'));
    try {
      const ownEnv = { ...process.env, LOUPE_DATA_DIR: own, DATABASE_URL: '' };
      expect((await inProcess(ownEnv, ['account', 'create', '--name', 'x'])).code).toBe(0);
      const file = path.join(own, 'loupe.db');
      const handle = await fs.open(file, 'r+');
      await handle.write(Buffer.alloc(8192, 0xa5), 0, 8192, 8192);
      await handle.close();
      const r = await inProcess(ownEnv, ['account', 'list']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`loupe: the database ${file} is damaged (database disk image is malformed): restore the last good backup (docs/operations.md "Backups")\n`);
    } finally {
      await fs.rm(own, { recursive: true, force: true });
    }
  });

  it('manages flows and webhook secrets', async () => {
    const file = path.join(dataDir, 'faces.json');
    await fs.writeFile(file, JSON.stringify({ name: 'faces', steps: [{ endpoint: 'identity/face' }, { endpoint: 'photo/descriptor', over: 'face', as: 'vecs' }] }));
    const created = await loupe('flow', 'create', '--file', file);
    expect(created).toMatchObject({ outcome: 'created', flow: { name: 'faces', steps: [{ endpoint: 'identity/face', as: 'face' }, { endpoint: 'photo/descriptor', as: 'vecs', over: 'face', max_objects: 10 }] } });
    expect(await loupe('flow', 'create', '--file', file)).toMatchObject({ outcome: 'updated' });
    expect((await loupe('flow', 'list')).flows.map((f: { name: string }) => f.name)).toEqual(['faces']);
    const shown = await loupe('flow', 'show', '--name', 'faces');
    expect(shown).toMatchObject({ name: 'faces' });
    // its keys as made, on PostgreSQL too (h172: jsonb's order there)
    const keysOf = (f: { steps: object[] }) => [Object.keys(f).filter((k) => k !== 'created_at' && k !== 'updated_at'), f.steps.map((st) => Object.keys(st))];
    expect(keysOf(shown)).toEqual(keysOf(created.flow));
    await fs.writeFile(file, JSON.stringify({ steps: [{ endpoint: 'photo/descriptor', over: 'nothing' }] }));
    const bad = await fails('flow', 'create', '--file', file, '--name', 'broken');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/step 1: "over" must name an earlier step/);
    expect(await loupe('flow', 'delete', 'faces', '--dry-run')).toEqual({ dry_run: true, deleted: 'faces' });
    expect((await fails('flow', 'delete', 'nope', '--dry-run')).stderr).toMatch(/Flow nope not found/);
    expect((await loupe('flow', 'show', '--name', 'faces')).name).toBe('faces');
    expect(await loupe('flow', 'delete', '--name', 'faces')).toEqual({ deleted: 'faces' });
    expect((await fails('flow', 'show', '--name', 'faces')).code).toBe(1);

    const { account } = await loupe('account', 'create', '--name', 'hooks');
    const first = await loupe('webhook-secret', 'show', '--account', account);
    expect(first.webhook_secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect((await loupe('webhook-secret', 'show', '--account', account)).webhook_secret).toBe(first.webhook_secret);
    const rotated = await loupe('webhook-secret', 'rotate', '--account', account);
    expect(rotated.webhook_secret).not.toBe(first.webhook_secret);
    expect((await loupe('webhook-secret', 'show', '--account', account)).webhook_secret).toBe(rotated.webhook_secret);
    // after an outage: every failed delivery sent again (none here; the sending is test/http/requests.test.ts's)
    expect(await loupe('webhook', 'resend', '--account', account)).toEqual({ account, resent: 0, not_resent: [] });
    expect((await fails('webhook', 'resend', '--account', '00000000-0000-4000-8000-000000000000')).stderr).toMatch(/not found/);
  }, 120_000); // twelve CLI processes, each starting tsx: 19 s on an idle machine, 23 s under load

  it('creates accounts whose token, workspace, credits and services drive the server', async () => {
    const created = await loupe('account', 'create', '--name', 'Card Shop', '--credits', '1', '--services', 'cardstream');
    expect(Object.keys(created).sort()).toEqual(['account', 'token', 'token_id', 'workspace']);
    expect(created.account).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.workspace).toMatch(/^[0-9a-f-]{36}$/);

    const ws2 = await loupe('workspace', 'add', '--account', created.account, '--name', 'binders');
    expect(ws2.workspace).toMatch(/^[0-9a-f-]{36}$/);
    const token2 = await loupe('token', 'add', '--account', created.account);
    expect(token2.token).toMatch(/^lp_/);

    const app = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent', databaseUrl: db?.url }));
    try {
      const call = (method: 'GET' | 'POST', url: string, token = created.token) =>
        app.inject({ method, url, headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, payload: method === 'POST' ? '{}' : undefined });
      const ping = await call('GET', `/cardstream/v2/ping/?workspace=${ws2.workspace}`);
      expect(ping.statusCode).toBe(200);
      expect(ping.json()).toMatchObject({ workspace: ws2.workspace, credits: 1 });
      expect((await call('POST', '/cardstream/v2/session/')).statusCode).toBe(201);
      expect((await call('POST', '/cardstream/v2/session/')).statusCode).toBe(402);
      expect(await loupe('credits', 'add', '--account', created.account, '--amount', '10')).toEqual({ account: created.account, credits: 10 });
      expect((await call('POST', '/cardstream/v2/session/', token2.token)).statusCode).toBe(201);

      expect(await loupe('services', 'disable', '--account', created.account, '--services', 'cardstream')).toEqual({ account: created.account, services: [] });
      expect((await call('GET', '/cardstream/v2/ping/')).statusCode).toBe(403);
      expect((await loupe('services', 'enable', '--account', created.account, '--services', 'cardstream')).services).toEqual(['cardstream']);
      expect((await call('GET', '/cardstream/v2/ping/')).statusCode).toBe(200);

      expect(await loupe('token', 'revoke', '--token', token2.token)).toEqual({ revoked: true });
      expect((await call('GET', '/cardstream/v2/ping/', token2.token)).statusCode).toBe(401);
      expect((await call('GET', '/cardstream/v2/ping/')).statusCode).toBe(200);
      // the first token by its id, as listed: revoked without the token itself
      const { tokens } = await loupe('token', 'list', '--account', created.account);
      expect(tokens.map((t: { token_id: string; revoked_at: string | null }) => [t.token_id, t.revoked_at === null])).toEqual([
        [created.token_id, true],
        [token2.token_id, false],
      ]);
      expect(await loupe('token', 'revoke', '--id', created.token_id)).toEqual({ revoked: true });
      expect((await call('GET', '/cardstream/v2/ping/')).statusCode).toBe(401);
      // a token deleted goes with its name, revoked or live (h235: a revoked token's name, often a person's, stayed)
      const third = await loupe('token', 'add', '--account', created.account, '--name', 'Erika Mustermann iPhone');
      expect((await call('GET', '/cardstream/v2/ping/', third.token)).statusCode).toBe(200);
      expect(await loupe('token', 'delete', '--token', third.token, '--dry-run')).toEqual({ dry_run: true, deleted: true, token_id: third.token_id, account: created.account, name: 'Erika Mustermann iPhone', created_at: expect.stringMatching(/^\d{4}-/), revoked_at: null });
      expect((await call('GET', '/cardstream/v2/ping/', third.token)).statusCode).toBe(200);
      expect(await loupe('token', 'delete', '--token', third.token)).toEqual({ deleted: true });
      expect((await call('GET', '/cardstream/v2/ping/', third.token)).statusCode).toBe(401);
      expect(await loupe('token', 'delete', '--id', token2.token_id)).toEqual({ deleted: true });
      expect((await loupe('token', 'list', '--account', created.account)).tokens.map((t: { token_id: string }) => t.token_id)).toEqual([created.token_id]);
      expect(await fails('token', 'delete', '--id', token2.token_id)).toMatchObject({ code: 1, stderr: expect.stringMatching(/Token.*not found/i) });
    } finally {
      await app.close();
    }
    // spaces alone are a usage slip, as an empty value is (h349: the service's words, exit 1)
    expect(await fails('workspace', 'add', '--account', created.account, '--name', ' ')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^loupe: --name is empty: give it a value\n\n {2}loupe workspace add /) });

    const shown = await loupe('account', 'show', '--account', created.account);
    expect(shown).toMatchObject({ id: created.account, name: 'Card Shop', credits: 9, services: ['cardstream'], created_at: expect.stringMatching(/Z$/) });
    // keys in the snake_case of every other command (account and workspace listings printed camelCase)
    expect(shown.workspaces[0]).toMatchObject({ account_id: created.account, is_default: true, created_at: expect.any(String) });
    expect(JSON.stringify(shown)).not.toMatch(/createdAt|isDefault|accountId/);
    expect(shown.workspaces).toHaveLength(2);
    // Tokens are stored hashed: the database file never contains one.
    if (backend === 'sqlite') {
      const file = await fs.readFile(path.join(dataDir, 'loupe.db'));
      expect(file.includes(Buffer.from(created.token))).toBe(false);
    }
  }, 90_000); // eight CLI processes and an app

  it('every service docs/cli.md lists can be disabled and enabled; disabling one of all keeps the rest', async () => {
    const created = await loupe('account', 'create', '--name', 'All services');
    const rest = await loupe('services', 'disable', '--account', created.account, '--services', 'cardstream');
    expect([...rest.services].sort()).toEqual(['collectibles', 'descriptor', 'identity', 'image_matching', 'requests', 'text_search', 'visual_search']);
    expect((await loupe('services', 'disable', '--account', created.account, '--services', 'requests')).services).not.toContain('requests');
    // the disables undone: all services again, so services added in later releases come with it
    expect((await loupe('services', 'enable', '--account', created.account, '--services', 'requests,cardstream')).services).toEqual(['*']);
    // The list of service names in docs/cli.md (the README's until 2026-12-07) is the CLI's.
    const listing = await fs.readFile(path.resolve(import.meta.dirname, '../docs/cli.md'), 'utf8');
    const listed = [...(listing.match(/^Services: (.*)$/m)?.[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(listed.length).toBeGreaterThan(4);
    for (const name of listed) {
      expect((await loupe('services', 'disable', '--account', created.account, '--services', name!)).services).not.toContain(name);
      expect((await loupe('services', 'enable', '--account', created.account, '--services', name!)).services).toEqual(['*']);
    }
  }, 90_000);

  it('defaults: every service, the configured default credits', async () => {
    const created = await loupe('account', 'create', '--name', 'Defaults');
    const shown = await loupe('account', 'show', '--account', created.account);
    expect(shown.services).toEqual(['*']);
    expect(shown.credits).toBe(1000);
  });

  it('erases an account with everything it holds (account delete), and nothing of another', async () => {
    const gone = await loupe('account', 'create', '--name', 'Leaving shop');
    const stays = await loupe('account', 'create', '--name', 'Staying shop');
    const { collection_id } = await loupe('collection', 'create', '--account', gone.account, '--type', 'custom', '--name', 'Faces');
    const image = (await fs.readFile(path.resolve(import.meta.dirname, 'fixtures/photos/caltech101/Leopards/image_0001.jpg'))).toString('base64');
    const mediaFiles = async () => (await fs.readdir(path.join(dataDir, 'media'), { recursive: true, withFileTypes: true }).catch(() => [])).filter((d) => d.isFile()).length;
    const app = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent', databaseUrl: db?.url }));
    // a running server's connection, open through the writes and the erasure: the log is then never removed at a
    // close, and kept the pages as they were before the delete until a checkpoint truncated it (h182)
    const SQLiteDriver = (await import('better-sqlite3')).default;
    const beside = backend === 'sqlite' ? new SQLiteDriver(path.join(dataDir, 'loupe.db')) : undefined;
    beside?.prepare('SELECT count(*) FROM accounts').get();
    let kept: string;
    const initial = await mediaFiles();
    try {
      const call = (url: string, body: unknown, token: string, headers: Record<string, string> = {}) =>
        app.inject({ method: 'POST', url, headers: { authorization: `Token ${token}`, 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
      const before = await mediaFiles();
      expect((await call('/similarity/custom/v2/insert', { records: [{ _id: 'penny', _base64: image, email: 'penny@example.com' }] }, gone.token, { 'collection-id': collection_id })).statusCode).toBeLessThan(300);
      const sessionOf = async (token: string) => {
        const sid = ((await call('/cardstream/v2/session/', { name: 'stream' }, token)).json() as { id: string }).id;
        expect((await call(`/cardstream/v2/session/${sid}/identifications/`, { identifications: [{ event_id: 'c1', name: 'Pikachu' }] }, token)).statusCode).toBeLessThan(300);
        expect((await call(`/cardstream/v2/session/${sid}/images/`, { event_id: 'c1', image }, token)).statusCode).toBeLessThan(300);
        return sid;
      };
      await sessionOf(gone.token);
      kept = await sessionOf(stays.token);
      const submitted = await call('/account/v2/request/', { type: 'upscaler', endpoint: 'upscale_2x', records: [{ _base64: image }] }, gone.token);
      expect(submitted.statusCode).toBeLessThan(300);
      // its result image is one of the account's files: waited for, as a loaded machine closed the app before the job
      // had written it (2 files erased, not 3)
      const requestId = (submitted.json() as { id: string }).id;
      for (let i = 0; i < 600; i++) {
        const got = await app.inject({ method: 'GET', url: `/account/v2/request/${requestId}`, headers: { authorization: `Token ${gone.token}` } });
        if ((got.json() as { status: string }).status === 'DONE') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      // two sessions' images and thumbnails, the upscaled result, and the record's thumbnail (h357)
      expect(await mediaFiles()).toBe(before + 6);
    } finally {
      await app.close();
    }
    if (backend === 'sqlite') expect(await fs.stat(path.join(dataDir, 'indexes', `${collection_id}.usearch`))).toBeTruthy();

    // a dry run and a question answered no remove nothing; the dry run's counts are the erasure's (h355)
    const held = await mediaFiles();
    const planned = await loupe('account', 'delete', '--account', gone.account, '--dry-run');
    expect(planned).toEqual({ dry_run: true, deleted: gone.account, collections: 1, sessions: 1, requests: 1, files: 4, files_not_found: 0, workspaces: 1, tokens: 1, collection_ids: [collection_id] });
    const declined = await inProcess(env(), ['account', 'delete', '--account', gone.account], { answer: false });
    expect([declined.code, declined.stdout, declined.asked]).toEqual([1, '', ['loupe: go on? [y/N] ']]);
    expect(declined.stderr).toBe(`loupe: account delete removes ${JSON.stringify(planned).replace('"dry_run":true,', '')}\nloupe: not confirmed: nothing was removed\n`);
    expect(await mediaFiles()).toBe(held);
    expect((await loupe('account', 'show', '--account', gone.account)).workspaces).toHaveLength(1);
    expect((await loupe('collection', 'list', '--account', gone.account)).collections).toHaveLength(1);
    // and the tokens were not revoked by either
    expect((await loupe('token', 'list', '--account', gone.account)).tokens.map((t: { revoked_at: string | null }) => t.revoked_at)).toEqual([null]);
    const erased = await loupe('account', 'delete', '--account', gone.account);
    expect(erased).toEqual({ deleted: gone.account, collections: 1, sessions: 1, requests: 1, files: 4, files_not_found: 0 });
    if (beside) {
      const wal = await fs.readFile(path.join(dataDir, 'loupe.db-wal')).catch(() => Buffer.alloc(0));
      beside.close();
      expect(wal.includes('penny@example.com')).toBe(false);
      expect(wal.includes('Leaving shop')).toBe(false);
    }
    expect((await fails('account', 'show', '--account', gone.account)).stderr).toMatch(/not found/);
    expect((await fails('collection', 'list', '--account', gone.account)).stderr).toMatch(/not found/);
    // the leaving shop's image and thumbnail are gone from disk; the staying shop's two are there
    const after = await mediaFiles();
    if (backend === 'sqlite') {
      await expect(fs.stat(path.join(dataDir, 'indexes', `${collection_id}.usearch`))).rejects.toThrow();
      const SQLite = (await import('better-sqlite3')).default;
      const sqlite = new SQLite(path.join(dataDir, 'loupe.db'), { readonly: true });
      try {
        expect(sqlite.prepare("SELECT name FROM sqlite_master WHERE name LIKE ?").all(`collection_fts_${collection_id.replaceAll('-', '')}%`)).toEqual([]);
      } finally {
        sqlite.close();
      }
      expect((await fs.readFile(path.join(dataDir, 'loupe.db'))).includes('penny@example.com')).toBe(false);
    }
    const app2 = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent', databaseUrl: db?.url }));
    try {
      const get = (url: string, token: string) => app2.inject({ method: 'GET', url, headers: { authorization: `Token ${token}` } });
      expect((await get('/cardstream/v2/session/', gone.token)).statusCode).toBe(401);
      expect((await get(`/cardstream/v2/session/${kept!}/`, stays.token)).statusCode).toBe(200);
    } finally {
      await app2.close();
    }
    expect(after).toBe(initial + 2);
    expect((await fails('account', 'delete', '--account', gone.account)).stderr).toMatch(/not found/);
  }, 120_000);

  it('erases one workspace with its sessions, requests and files (workspace delete), and nothing else of the account', async () => {
    const shop = await loupe('account', 'create', '--name', 'Consignment shop');
    const { workspace } = await loupe('workspace', 'add', '--account', shop.account, '--name', 'Customer Ilse');
    const image = (await fs.readFile(path.resolve(import.meta.dirname, 'fixtures/photos/caltech101/Leopards/image_0001.jpg'))).toString('base64');
    const mediaFiles = async () => (await fs.readdir(path.join(dataDir, 'media'), { recursive: true, withFileTypes: true }).catch(() => [])).filter((d) => d.isFile()).length;
    const app = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent', databaseUrl: db?.url }));
    const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
      app.inject({ method, url, headers: { authorization: `Token ${shop.token}`, 'content-type': 'application/json' }, ...(body ? { payload: JSON.stringify(body) } : {}) });
    const sessionIn = async (name: string, ws?: string) => {
      const q = ws ? `?workspace=${ws}` : '';
      const sid = ((await call('POST', `/cardstream/v2/session/${q}`, { name })).json() as { id: string }).id;
      expect((await call('POST', `/cardstream/v2/session/${sid}/identifications/${q}`, { identifications: [{ event_id: 'c1', name: 'Pikachu' }] })).statusCode).toBeLessThan(300);
      expect((await call('POST', `/cardstream/v2/session/${sid}/images/${q}`, { event_id: 'c1', image })).statusCode).toBeLessThan(300);
      return sid;
    };
    let kept: string;
    let gone: string;
    const before = await mediaFiles();
    try {
      gone = await sessionIn('Ilse Zyxwvut binder', workspace);
      kept = await sessionIn('Shop stock');
      const submitted = await call('POST', `/account/v2/request/?workspace=${workspace}`, { type: 'upscaler', endpoint: 'upscale_2x', records: [{ _base64: image }] });
      expect(submitted.statusCode).toBeLessThan(300);
      // its result file written before the server stops (a loaded machine closed it first: files 2, not 3)
      const id = (submitted.json() as { id: string }).id;
      await expect.poll(async () => ((await call('GET', `/account/v2/request/${id}?workspace=${workspace}`)).json() as { status: string }).status, { timeout: 60_000, interval: 200 }).toBe('DONE');
      expect(await mediaFiles()).toBe(before + 5);
    } finally {
      await app.close();
    }
    const held = await mediaFiles();
    expect(await loupe('workspace', 'delete', '--workspace', workspace, '--dry-run')).toEqual({ dry_run: true, deleted: workspace, account: shop.account, sessions: 1, requests: 1, files: 3, files_not_found: 0, refunded: 0 });
    expect(await mediaFiles()).toBe(held);
    expect((await loupe('workspace', 'list', '--account', shop.account)).workspaces).toHaveLength(2);
    // at a terminal it asks, and a yes erases; --yes does not ask
    const asked = await inProcess(env(), ['workspace', 'delete', '--workspace', workspace], { answer: true });
    expect([asked.code, asked.asked.length, asked.stderr.split('\n')[0]]).toEqual([0, 1, `loupe: workspace delete removes {"deleted":"${workspace}","account":"${shop.account}","sessions":1,"requests":1,"files":3,"files_not_found":0,"refunded":0}`]);
    const erased = JSON.parse(asked.stdout);
    expect(erased).toEqual({ deleted: workspace, account: shop.account, sessions: 1, requests: 1, files: 3, files_not_found: 0 });
    expect(await mediaFiles()).toBe(before + 2);
    const listed = (await loupe('workspace', 'list', '--account', shop.account)).workspaces.map((w: { id: string }) => w.id);
    expect(listed).not.toContain(workspace);
    expect(listed).toHaveLength(1);
    if (backend === 'sqlite') {
      // nor its search text's trigrams in the sessions' index
      const file = await fs.readFile(path.join(dataDir, 'loupe.db'));
      expect([file.includes('Zyxwvut'), file.includes('yxw')]).toEqual([false, false]);
    }
    const app2 = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent', databaseUrl: db?.url }));
    try {
      const get = (url: string) => app2.inject({ method: 'GET', url, headers: { authorization: `Token ${shop.token}` } });
      expect((await get(`/cardstream/v2/session/${gone!}/?workspace=${workspace}`)).statusCode).toBe(404);
      expect((await get(`/cardstream/v2/session/${kept!}/`)).statusCode).toBe(200);
    } finally {
      await app2.close();
    }
    // the default workspace goes only with the account; an unknown one is said
    const [defaultWorkspace] = listed;
    expect((await fails('workspace', 'delete', '--workspace', defaultWorkspace)).stderr).toMatch(/default: it goes only with the account/);
    expect((await fails('workspace', 'delete', workspace)).stderr).toMatch(/not found/);
    expect((await fails('workspace', 'delete', '--workspace', 'nope')).stderr).toMatch(/not found/);
  }, 120_000);

  it.skipIf(backend !== 'postgres')('an erasure on PostgreSQL names the files a move from SQLite left holding the account (h182)', async () => {
    const gone = await loupe('account', 'create', '--name', 'Moved shop');
    const left = [path.join(dataDir, 'loupe.db'), path.join(dataDir, 'indexes', 'moved.usearch')];
    await fs.mkdir(path.join(dataDir, 'indexes'), { recursive: true });
    const made = [path.join(dataDir, 'MOVED-TO-POSTGRES'), ...left].filter((f) => !existsSync(f));
    for (const f of made) await fs.writeFile(f, 'x');
    try {
      const r = await inProcess(env(), ['account', 'delete', '--account', gone.account]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).left_in).toEqual(left);
      expect(r.stderr).toMatch(/still holds? it as it was at the move \(.*loupe\.db, .*moved\.usearch\): remove them/);
    } finally {
      for (const f of made) await fs.rm(f, { force: true });
    }
  });

  it.skipIf(backend !== 'postgres')("an erasure run with another data folder than the server's says so, and leaves the files named for the server's sweep (h100)", async () => {
    const gone = await loupe('account', 'create', '--name', 'Elsewhere');
    const image = (await fs.readFile(path.resolve(import.meta.dirname, 'fixtures/photos/caltech101/Leopards/image_0001.jpg'))).toString('base64');
    const mediaFiles = async () => (await fs.readdir(path.join(dataDir, 'media'), { recursive: true, withFileTypes: true }).catch(() => [])).filter((d) => d.isFile()).length;
    const app = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent', databaseUrl: db?.url }));
    const other = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-other-'));
    try {
      const call = (url: string, body: unknown) => app.inject({ method: 'POST', url, headers: { authorization: `Token ${gone.token}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      const before = await mediaFiles();
      const sid = ((await call('/cardstream/v2/session/', { name: 'stream' })).json() as { id: string }).id;
      expect((await call(`/cardstream/v2/session/${sid}/identifications/`, { identifications: [{ event_id: 'c1', name: 'Pikachu' }] })).statusCode).toBe(200);
      expect((await call(`/cardstream/v2/session/${sid}/images/`, { event_id: 'c1', image })).statusCode).toBe(200);
      expect(await mediaFiles()).toBe(before + 2);
      const r = await inProcess({ ...env(), LOUPE_DATA_DIR: other }, ['account', 'delete', '--account', gone.account]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ sessions: 1, files: 0, files_not_found: 2 });
      expect(r.stderr).toMatch(/2 of the files the account's rows named were not in .*loupe-other-.*: if the server's LOUPE_DATA_DIR is another folder, its sweep removes them there/);
      // still on the server's disk (they were counted removed and left for good), named for its sweep
      expect(await mediaFiles()).toBe(before + 2);
      await (app.loupe as unknown as { queue: { sweep(): Promise<number> } }).queue.sweep();
      expect(await mediaFiles()).toBe(before);
    } finally {
      await app.close();
      await fs.rm(other, { recursive: true, force: true });
    }
  }, 120_000);

  it('deletes one asynchronous request with its inputs before its retention ends (request delete, h100)', async () => {
    const owner = await loupe('account', 'create', '--name', 'One photo out', '--credits', '10');
    const image = (await fs.readFile(path.resolve(import.meta.dirname, 'fixtures/photos/caltech101/Leopards/image_0001.jpg'))).toString('base64');
    const app = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent', databaseUrl: db?.url, queue: { workers: 0 } }));
    let id: string;
    try {
      const res = await app.inject({ method: 'POST', url: '/account/v2/request/', headers: { authorization: `Token ${owner.token}`, 'content-type': 'application/json' }, payload: JSON.stringify({ type: 'upscaler', endpoint: 'upscale_2x', records: [{ _base64: image }] }) });
      expect(res.statusCode).toBe(201);
      id = res.json().id;
    } finally {
      await app.close();
    }
    expect((await loupe('account', 'show', '--account', owner.account)).credits).toBe(9);
    // not run yet: its charge goes back with it; a dry run says so and gives nothing back
    expect(await loupe('request', 'delete', id, '--dry-run')).toEqual({ dry_run: true, deleted: id, files: 0, files_not_found: 0, refunded: 1 });
    expect((await loupe('account', 'show', '--account', owner.account)).credits).toBe(9);
    expect(await loupe('request', 'delete', '--request', id)).toEqual({ deleted: id, files: 0, files_not_found: 0, refunded: 1 });
    expect((await loupe('account', 'show', '--account', owner.account)).credits).toBe(10);
    expect((await fails('request', 'delete', '--request', id)).stderr).toMatch(/Request .* not found/);
    expect((await fails('request', 'delete', '--request', 'not-an-id')).stderr).toMatch(/Request not-an-id not found/);
  }, 60_000);

  it('creates, lists, shows and deletes collections', async () => {
    const owner = await loupe('account', 'create', '--name', 'Shoe shop');
    const created = await loupe('collection', 'create', '--account', owner.account, '--type', 'product', '--name', 'Shoes', '--capacity', '500');
    expect(Object.keys(created)).toEqual(['collection_id']);
    const photo = await loupe('collection', 'create', '--account', owner.account, '--type', 'photo', '--name', 'Photos', '--product-field', 'sku');
    const shown = await loupe('collection', 'show', '--collection', created.collection_id);
    expect(shown).toMatchObject({ collection_id: created.collection_id, account: owner.account, type: 'product', name: 'Shoes', product_field: 'product_id', capacity: 500, records: 0, model: null });
    expect((await loupe('collection', 'show', '--collection', photo.collection_id)).product_field).toBe('sku');
    const listed = await loupe('collection', 'list', '--account', owner.account);
    expect(listed.collections.map((c: { collection_id: string }) => c.collection_id).sort()).toEqual([created.collection_id, photo.collection_id].sort());
    expect(await loupe('collection', 'delete', created.collection_id, '--dry-run')).toEqual({ dry_run: true, deleted: created.collection_id, files: 0, files_not_found: 0, account: owner.account, type: 'product', name: 'Shoes', records: 0 });
    expect((await loupe('collection', 'show', '--collection', created.collection_id)).name).toBe('Shoes');
    expect(await loupe('collection', 'delete', '--collection', created.collection_id, '--yes')).toEqual({ deleted: created.collection_id, files: 0 });
    const gone = await fails('collection', 'show', '--collection', created.collection_id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/not found/);
    const badType = await fails('collection', 'create', '--account', owner.account, '--type', 'music', '--name', 'x');
    expect(badType.stderr).toMatch(/photo, product, custom, fashion, homedecor/);
    expect((await fails('collection', 'create', '--account', owner.account, '--name', 'x')).code).toBe(2);
  }, 60_000);

  it('takes ids typed in capitals as the database keeps them, on both backends (h349: SQLite said not found, or listed nothing)', async () => {
    const owner = await loupe('account', 'create', '--name', 'Capitals');
    const upper = owner.account.toUpperCase();
    const photos = await loupe('collection', 'create', '--account', upper, '--type', 'photo', '--name', 'Photos');
    // the list was empty, exit 0, on SQLite: the worst of the answers, as a script reads "no collections"
    expect((await loupe('collection', 'list', '--account', upper)).collections.map((c: { collection_id: string }) => c.collection_id)).toEqual([photos.collection_id]);
    expect(await loupe('account', 'show', '--account', upper)).toMatchObject({ id: owner.account, name: 'Capitals' });
    expect((await loupe('token', 'list', '--account', upper)).tokens).toHaveLength(1);
    expect(await loupe('credits', 'add', '--account', upper, '--amount', '5')).toEqual({ account: owner.account, credits: 1005 });
    expect(await loupe('collection', 'show', photos.collection_id.toUpperCase())).toMatchObject({ collection_id: photos.collection_id, account: owner.account });
    const second = await loupe('token', 'add', '--account', upper);
    expect(await loupe('token', 'revoke', second.token_id.toUpperCase())).toEqual({ revoked: true });
    expect(await loupe('token', 'delete', '--id', second.token_id.toUpperCase())).toEqual({ deleted: true });
    // a token itself is not an id: its case is its own
    expect((await fails('token', 'revoke', '--token', owner.token.toUpperCase())).code).toBe(1);
    expect(await loupe('token', 'revoke', '--token', owner.token)).toEqual({ revoked: true });
  }, 60_000);

  it('reports usage errors with exit code 2 and nothing on stdout', async () => {
    // the binary once each way (exit 2, exit 1), the rest in this process
    // without a command the usage is the error's text: stderr, exit 2
    const bare = await fails();
    expect([bare.code, bare.stdout]).toEqual([2, '']);
    expect(bare.stderr).toMatch(/^loupe — Loupe admin command/);
    const binary = await failsAsProcess('bogus');
    expect([binary.code, binary.stdout]).toEqual([2, '']);
    expect(binary.stderr).toMatch(/loupe: unknown command "bogus"/);
    const binaryFailed = await failsAsProcess('credits', 'add', '--account', '00000000-0000-4000-8000-000000000000', '--amount', '5');
    expect([binaryFailed.code, binaryFailed.stdout]).toEqual([1, '']);
    // a number past 2^53 would be rounded silently (a 20-digit amount added nothing): a usage error
    for (const args of [['account', 'create'], ['bogus'], ['account', 'create', '--name', 'x', '--credits', 'lots'], ['account', 'create', '--nmae', 'x'], ['account', 'create', '--name', 'x', '--credits', '99999999999999999999']]) {
      const r = await fails(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/loupe: /);
    }
    // --dry-run and --yes are the erasing commands' only (h355)
    expect(await fails('account', 'list', '--dry-run')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^loupe: --dry-run is not an option of "account list"/) });
    expect((await fails('token', 'revoke', '--yes', '00000000-0000-4000-8000-000000000000')).code).toBe(2);
    const unknown = await fails('credits', 'add', '--account', '00000000-0000-4000-8000-000000000000', '--amount', '5');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/not found/);
    // an operator's change keeps the balance from 0 to 10^12, and a collection's room to 10^9
    const small = await loupe('account', 'create', '--name', 'small', '--credits', '3');
    // a negative value after a space is the parser's "ambiguous": told how to write it, with the command's usage only (h85)
    const spaced = await fails('credits', 'add', '--account', small.account, '--amount', '-5');
    expect([spaced.code, spaced.stderr]).toEqual([2, `loupe: --amount -5: a value that starts with "-" is written --amount=-5\n\n  loupe credits add --account A --amount N\n\n(loupe --help lists every command)\n`]);
    const below = await fails('credits', 'add', '--account', small.account, '--amount=-5');
    expect([below.code, below.stderr]).toEqual([1, expect.stringMatching(/The balance \(3\) would become -2: an account holds from 0 to 1000000000000 credits/)]);
    expect((await fails('credits', 'add', '--account', small.account, '--amount', '1000000000000')).code).toBe(1);
    expect(await loupe('credits', 'add', '--account', small.account, '--amount=-3')).toEqual({ account: small.account, credits: 0 });
    expect((await fails('account', 'create', '--name', 'x', '--credits', '1000000000001')).stderr).toMatch(/Credits must be an integer from 0 to 1000000000000/);
    expect((await fails('collection', 'create', '--account', small.account, '--type', 'photo', '--name', 'big', '--capacity', '1000000000001')).stderr).toMatch(/capacity must be an integer from 1 to 1000000000/);
    const badService = await fails('account', 'create', '--name', 'x', '--services', 'teleport');
    // a mistake in what was typed is a usage error, exit 2, told before any database is opened (h272: exit 1)
    expect(badService.code).toBe(2);
    expect(badService.stderr).toMatch(/Unknown service "teleport"/);
    expect(badService.stderr).toMatch(/loupe account create --name N/);
    expect((await fails('services', 'enable', '--account', small.account, 'vision', 'teleport')).code).toBe(2);
    // a mistyped command touches no folder: `loupe version` made an empty database where it was run
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-none-'));
    const typo = await inProcess({ ...env(), LOUPE_DATA_DIR: path.join(elsewhere, 'data'), DATABASE_URL: '' }, ['version']);
    expect([typo.code, typo.stderr.split('\n')[0], await fs.readdir(elsewhere)]).toEqual([2, 'loupe: unknown command "version"', []]);
    // the worker: arguments are refused, a setting of the wrong form is one line, not a stack trace
    expect(await inProcess(env(), ['worker', 'bogus-arg'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^loupe: unexpected argument: bogus-arg/) });
    const badLevel = await inProcess({ ...env(), LOG_LEVEL: 'INFO' }, ['worker']);
    expect([badLevel.code, badLevel.stderr]).toEqual([1, 'loupe: cannot start the worker: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "INFO"\n']);
    await fs.rm(elsewhere, { recursive: true, force: true });
    // an option of another command is refused (it was ignored: the account got the default credits), followed by the command's own usage
    const foreign = await fails('account', 'create', '--name', 'x', '--amount', '5');
    expect([foreign.code, foreign.stderr]).toEqual([2, 'loupe: --amount is not an option of "account create"\n\n  loupe account create --name N [--credits C] [--services s1,s2]\n\n(loupe --help lists every command)\n']);
    expect((await fails('token', 'revoke', '--token', 'lp_x', '--id', 'y')).stderr).toMatch(/^loupe: give --token or --id, not both/);
    // words a command does not take, and an option given twice, are refused, not ignored (h109: one token of two revoked, exit 0)
    const two = await loupe('token', 'add', '--account', small.account);
    const stray = await fails('token', 'revoke', '--id', two.token_id, 'second-id');
    expect([stray.code, stray.stderr.split('\n')[0]]).toEqual([2, 'loupe: unexpected argument: second-id (a value with spaces is quoted: --name "Card Shop")']);
    expect((await fails('account', 'create', '--name', 'Card', 'Shop')).code).toBe(2);
    expect((await fails('services', 'disable', '--account', small.account, '--services', 'identity', 'descriptor')).code).toBe(2);
    expect(await fails('account', 'show', '--account', small.account, '--account', two.token_id)).toMatchObject({ code: 2, stderr: expect.stringMatching(/^loupe: --account is given twice/) });
    // a mistyped option names the nearest, an empty value is a usage error (h113)
    expect(await fails('account', 'show', '--acount', small.account)).toMatchObject({ code: 2, stderr: expect.stringMatching(/^loupe: --acount is not an option of "account show" \(did you mean --account\?\)/) });
    expect(await fails('token', 'revoke', '--id=')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^loupe: --id is empty: give it a value/) });
    // a word where the command takes one still works
    expect(await loupe('token', 'revoke', two.token_id)).toEqual({ revoked: true });
    expect((await inProcess(env(), ['worker', '--account', 'x'])).code).toBe(2);
    // on a folder with no database only a deployment's first steps make one: a check from cron answered ok from ./data (h109)
    const none = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-fresh-'));
    for (const args of [['media', 'check'], ['catalog', 'cards', '--catalog', 'pokemon'], ['token', 'revoke', '--id', 'x'], ['request', 'delete', '--request', 'x'], ['models', 'list'], ['worker']]) {
      const r = await inProcess({ ...env(), LOUPE_DATA_DIR: path.join(none, 'data'), DATABASE_URL: '' }, args);
      expect([r.code, r.stdout], args.join(' ')).toEqual([1, '']);
      expect(r.stderr, args.join(' ')).toMatch(/^loupe: no (database in|data folder)/);
    }
    expect(await fs.readdir(none)).toEqual([]);
    await fs.rm(none, { recursive: true, force: true });
    // a worker with the background paused would run a restored copy's jobs all the same (h110)
    expect(await inProcess({ ...env(), LOUPE_PAUSE_BACKGROUND: '1' }, ['worker'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^loupe: LOUPE_PAUSE_BACKGROUND is set/) });
    if (backend === 'postgres') {
      // a DATABASE_URL naming an empty database: refused, and left empty (it was given the whole schema, h110)
      const empty = await scratchPgDatabase('loupe_cli_empty');
      try {
        for (let i = 0; i < 2; i++) expect(await inProcess({ ...env(), DATABASE_URL: empty.url }, ['account', 'list'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/no Loupe database here/) });
        // nor does a worker make one (h116); `migrate` does, as the README's first install (h116)
        // it waits LOUPE_WORKER_WAIT_S for a server to make it, saying so (h154: workers started with the servers died)
        const t0 = Date.now();
        const waited = await inProcess({ ...env(), DATABASE_URL: empty.url, LOUPE_WORKER_WAIT_S: '2' }, ['worker']);
        expect(waited).toMatchObject({ code: 1, stderr: expect.stringMatching(/^loupe: cannot start the worker: no Loupe database here/) });
        expect(Date.now() - t0).toBeGreaterThanOrEqual(2000);
        expect(await inProcess({ ...env(), DATABASE_URL: empty.url, LOUPE_WORKER_WAIT_S: '0' }, ['worker'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^loupe: cannot start the worker: no Loupe database here/) });
        expect(await inProcess({ ...env(), DATABASE_URL: empty.url }, ['migrate'])).toMatchObject({ code: 0 });
        expect(await inProcess({ ...env(), DATABASE_URL: empty.url }, ['account', 'list'])).toMatchObject({ code: 0 });
        const unset = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-pg-'));
        expect(await inProcess({ ...env(), LOUPE_DATA_DIR: path.join(unset, 'data') }, ['media', 'check'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^loupe: no media folder in/) });
        expect(await fs.readdir(unset)).toEqual([]);
        await fs.rm(unset, { recursive: true, force: true });
      } finally {
        await empty.drop();
      }
    }
    // the release, and one command's usage
    const version = await inProcess(env(), ['--version']);
    expect([version.code, version.stdout]).toEqual([0, expect.stringMatching(/^loupe \d+\.\d+\.\d+ \(Node v\d+/)]);
    expect(await inProcess(env(), ['token', 'revoke', '--help'])).toMatchObject({ code: 0, stdout: '  loupe token revoke --token T | --id TOKEN_ID\n' });
    // --version beside a command replaced it, exit 0 and nothing done; --help of no command was the usage, exit 0 (h194)
    const kept = await loupe('account', 'create', '--name', 'kept');
    expect(await inProcess(env(), ['account', 'delete', '--account', kept.account, '-v'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^loupe: --version \(-v\) is given alone/) });
    expect(await inProcess(env(), ['--version', '--help'])).toMatchObject({ code: 2, stdout: '' });
    expect((await loupe('account', 'show', '--account', kept.account)).name).toBe('kept');
    expect(await inProcess(env(), ['bogus', '--help'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^loupe: unknown command "bogus"/) });
    // `loupe help` is `loupe --help`, as git and npm take it (h272: unknown command "help", exit 2)
    expect(await inProcess(env(), ['help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('loupe account create --name N') });
    expect(await inProcess(env(), ['help', 'token', 'revoke'])).toMatchObject({ code: 0, stdout: '  loupe token revoke --token T | --id TOKEN_ID\n' });
    expect(await inProcess(env(), ['help', 'bogus'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^loupe: unknown command "bogus"/) });
    // a group alone names its subcommands, with their lines; a type no collection has is a usage error (h274: exit 1)
    expect(await inProcess(env(), ['token'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^loupe: token needs a subcommand: add, list, revoke, delete\n\n {2}loupe token add /) });
    expect(await inProcess(env(), ['token', 'frob'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^loupe: unknown command "token frob": token takes add, list, revoke, delete\n/) });
    expect(await inProcess(env(), ['collection', 'create', '--account', kept.account, '--type', 'bogus', '--name', 'x'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^loupe: --type is one of photo, product, custom, fashion, homedecor, not "bogus"\n/) });
    // an answer that cannot be written after the command was done: exit 3 and one line, not a stack trace and exit 1 (h109)
    const child = spawn(process.execPath, [bin, 'account', 'create', '--name', 'piped'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let said = '';
    child.stderr.on('data', (d: Buffer) => (said += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect([code, said]).toEqual([3, expect.stringMatching(/^loupe: the answer could not be written \(EPIPE\): the command was done, its answer is lost\n$/)]);
    expect((await loupe('account', 'list')).accounts.map((a: { name: string }) => a.name)).toContain('piped');
    // stdout closed or /dev/null: the token, shown once, is lost; said on stderr (it was exit 0 and nothing said, h194)
    const nowhere = spawn(process.execPath, [bin, 'account', 'create', '--name', 'unseen'], { env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
    let warned = '';
    nowhere.stderr.on('data', (d: Buffer) => (warned += d.toString()));
    expect(await new Promise<number | null>((r) => nowhere.on('exit', r))).toBe(0);
    expect(warned).toMatch(/stdout is closed or \/dev\/null: the new token, shown only once, will be lost/);
    // a file that is not there is an error of the run (1), not of the usage (2)
    expect((await fails('flow', 'create', '--file', path.join(os.tmpdir(), 'no-such-flow.json'))).code).toBe(1);
  }, 60_000); // two CLI processes
});

describe('admin CLI: a usage slip before the database', () => {
  const A = '00000000-0000-4000-8000-000000000000';
  // [what is typed, the slip said]: every command with a required option (the usage's, outside [ ]), and the forms of
  // the options that have one (integers, --type, --services, one of two)
  const slips: [string[], RegExp][] = [
    [['account', 'create'], /missing --name/],
    [['account', 'create', '--name', 'x', '--credits', 'lots'], /--credits must be an integer/],
    [['account', 'create', '--name', 'x', '--services', 'teleport'], /Unknown service "teleport"/],
    [['account', 'show'], /missing --account/],
    [['account', 'delete'], /missing --account/],
    [['workspace', 'add', '--name', 'w'], /missing --account/],
    [['workspace', 'list'], /missing --account/],
    [['workspace', 'delete'], /missing --workspace/],
    [['token', 'add', '--name', 't'], /missing --account/],
    [['token', 'list'], /missing --account/],
    [['token', 'revoke'], /missing --token/],
    [['token', 'revoke', '--token', 'lp_x', '--id', A], /give --token or --id, not both/],
    [['token', 'delete'], /missing --token/],
    [['credits', 'add', '--amount', '5'], /missing --account/],
    [['credits', 'add', '--account', A], /missing --amount/],
    [['credits', 'add', '--account', A, '--amount', 'five'], /--amount must be an integer/],
    [['credits', 'add', '--account', A, '--amount', '99999999999999999999'], /--amount must be an integer of at most 15 digits/],
    [['services', 'enable', '--account', A], /missing --services/],
    [['services', 'enable', '--services', 'identity'], /missing --account/],
    [['services', 'disable', '--account', A, 'identity', 'teleport'], /Unknown service "teleport"/],
    [['collection', 'create', '--account', A, '--name', 'c'], /missing --type/],
    [['collection', 'create', '--account', A, '--type', 'photo'], /missing --name/],
    [['collection', 'create', '--type', 'photo', '--name', 'c'], /missing --account/],
    [['collection', 'create', '--account', A, '--type', 'music', '--name', 'c'], /--type is one of photo, product, custom, fashion, homedecor, not "music"/],
    [['collection', 'create', '--account', A, '--type', 'photo', '--name', 'c', '--capacity', 'big'], /--capacity must be an integer/],
    // a range the usage can tell (h349: exit 1 from the service, where --limit's range was exit 2)
    [['collection', 'create', '--account', A, '--type', 'photo', '--name', 'c', '--capacity', '0'], /--capacity must be an integer from 1 to 1000000000, got 0/],
    // spaces alone are no value (h349: the service's "needs a non-empty name", exit 1)
    [['account', 'create', '--name', '   '], /--name is empty: give it a value/],
    // one dash: Node's words told to put the word after `--` (h349)
    [['account', 'create', '-name', 'x'], /-name is not an option of "account create": options are written with two dashes \(did you mean --name\?\)/],
    [['collection', 'show'], /missing --collection/],
    [['collection', 'delete'], /missing --collection/],
    [['collection', 'compact'], /missing --collection/],
    [['backup'], /backup needs --to DIR/],
    [['move-to-postgres'], /move-to-postgres needs --to URL/],
    [['move-to-postgres', '--to', 'loupe.db'], /--to names a PostgreSQL database as a URL/],
    [['request', 'delete'], /missing --request/],
    [['flow', 'create', '--name', 'f'], /missing --file/],
    [['flow', 'show'], /missing --name/],
    [['flow', 'delete'], /missing --name/],
    [['webhook-secret', 'show'], /missing --account/],
    [['webhook-secret', 'rotate'], /missing --account/],
    [['webhook', 'resend'], /missing --account/],
    [['catalog', 'import', '--cards', 'cards.json'], /missing --kind/],
    [['catalog', 'images', '--dir', 'scans'], /missing --catalog/],
    [['catalog', 'images', '--catalog', 'keys'], /missing --dir/],
    [['catalog', 'cards'], /missing --catalog/],
    [['catalog', 'delete'], /missing --catalog/],
    [['prices', 'import', '--catalog', 'keys'], /missing --file/],
    [['prices', 'import', '--file', 'prices.csv'], /missing --catalog/],
    [['prices', 'delete', '--catalog', 'keys'], /missing --card/],
    // a day the calendar lacks passed the pattern here, and was the service's exit 1 once the database was open (h349)
    [['prices', 'delete', '--catalog', 'keys', '--card', 'k', '--date', '2021-02-29'], /--date is not a day of the calendar: "2021-02-29"/],
    [['models', 'add'], /missing the pack folder/],
    [['models', 'activate'], /missing --name/],
    [['models', 'remove'], /missing --name/],
    // an erasure shown or done without asking, not both (h355)
    [['account', 'delete', '--account', A, '--dry-run', '--yes'], /give --dry-run \(show what would be removed\) or --yes \(remove without asking\), not both/],
  ];
  const commandOf = (args: string[]) => (['migrate', 'backup', 'worker', 'move-to-postgres'].includes(args[0]!) ? args[0]! : args.slice(0, 2).join(' '));

  it('covers every command whose usage has a required option', async () => {
    const help = await inProcess(process.env, ['--help']);
    const needing = help.stdout
      .split('\n')
      .filter((l) => /^ {2}loupe [a-z]/.test(l))
      .map((l) => {
        // the command's form, without its description (after two spaces) and its optional parts
        let form = l.trim().split(/\s{2,}/)[0]!;
        while (/\[[^[\]]*\]/.test(form)) form = form.replace(/\[[^[\]]*\]/g, '');
        const words = form.split(/\s+/).slice(1);
        return { command: commandOf(words), required: /(^|\s)(--[a-z]|<)/.test(form) };
      })
      .filter((c) => c.required)
      .map((c) => c.command);
    expect(needing.length).toBeGreaterThan(30);
    expect([...new Set(slips.map(([args]) => commandOf(args)))].sort()).toEqual([...new Set(needing)].sort());
  });

  it('exits 2 with the usage, nothing on stdout and no folder made, where there is no database to open (h324: exit 1, "no database")', async () => {
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-nodb-'));
    const missing = path.join(scratch, 'data');
    try {
      // no data folder (SQLite), and a PostgreSQL that refuses connections
      for (const env of [{ ...process.env, LOUPE_DATA_DIR: missing, DATABASE_URL: '' }, { ...process.env, LOUPE_DATA_DIR: missing, DATABASE_URL: 'postgres://loupe@127.0.0.1:1/x' }]) {
        const where = env.DATABASE_URL ? 'refusing PostgreSQL' : 'no SQLite folder';
        for (const [args, said] of slips) {
          const r = await inProcess(env, args);
          const what = `${where}: loupe ${args.join(' ')}`;
          expect([r.code, r.stdout], `${what}: ${r.stderr}`).toEqual([2, '']);
          expect(r.stderr, what).toMatch(said);
          expect(r.stderr, what).toMatch(new RegExp(`^loupe: [^\\n]+\\n\\n {2}loupe ${commandOf(args)} `));
          // nor made a folder for it (which the next command would find)
          expect(existsSync(missing), what).toBe(false);
        }
        // typed right, the command still meets the missing database: exit 1, nothing on stdout
        for (const args of [
          ['account', 'show', '--account', A],
          ['credits', 'add', '--account', A, '--amount', '5'],
          ['collection', 'create', '--account', A, '--type', 'photo', '--name', 'c', '--capacity', '10'],
          ['services', 'enable', '--account', A, '--services', 'identity'],
        ]) {
          const r = await inProcess(env, args);
          const what = `${where}: loupe ${args.join(' ')}`;
          expect([r.code, r.stdout], `${what}: ${r.stderr}`).toEqual([1, '']);
          expect(r.stderr, what).toMatch(env.DATABASE_URL ? /ECONNREFUSED/ : /^loupe: no database in /);
        }
      }
      expect(await fs.readdir(scratch)).toEqual([]);
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
  });

  it('reads a flow file before a database is made for it: no file, no JSON or no name leaves no data folder', async () => {
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-flowfile-'));
    const data = path.join(scratch, 'data');
    try {
      await fs.writeFile(path.join(scratch, 'nameless.json'), JSON.stringify({ steps: [] }));
      await fs.writeFile(path.join(scratch, 'broken.json'), '{"name": "f",');
      const env = { ...process.env, LOUPE_DATA_DIR: data, DATABASE_URL: '' };
      for (const [file, code, said] of [
        ['nameless.json', 2, /^loupe: name the flow with --name or a "name" field in the file\n\n {2}loupe flow create /],
        ['broken.json', 1, /^loupe: cannot read .*broken\.json as JSON: /],
        ['absent.json', 1, /^loupe: cannot read .*absent\.json as JSON: ENOENT/],
      ] as const) {
        const r = await inProcess(env, ['flow', 'create', '--file', path.join(scratch, file)]);
        expect([r.code, r.stdout], `${file}: ${r.stderr}`).toEqual([code, '']);
        expect(r.stderr, file).toMatch(said);
        // before, the database was made first (flow create may start a deployment), then the file refused
        expect(existsSync(data), file).toBe(false);
      }
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
  });
});

describe('admin CLI: model packs', () => {
  it('installs a CLIP pack with `loupe models add`, lists, activates and removes it, without a database', async () => {
    const { writeTinyClipPack } = await import('./helpers/tiny-clip.ts');
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-models-'));
    // An unreachable database: model commands must not open one.
    const env = { ...process.env, LOUPE_DATA_DIR: path.join(scratch, 'data'), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const loupe = async (...args: string[]) => {
      const { code, stdout, stderr } = await inProcess(env, args);
      expect(code, stderr).toBe(0);
      const lines = stdout.split('\n').filter(Boolean);
      expect(lines, `one JSON line from: loupe ${args.join(' ')}`).toHaveLength(1);
      return JSON.parse(lines[0]!);
    };
    try {
      const src = await writeTinyClipPack(path.join(scratch, 'clip-vit-tiny'));
      const added = await loupe('models', 'add', src);
      expect(added).toMatchObject({ name: 'clip-vit-tiny', dimension: 8, active: true, image: { crop: 32 }, text: { context_length: 77 } });
      await fs.access(path.join(scratch, 'data/models/clip-vit-tiny/pack.json'));

      expect(await loupe('models', 'add', src, '--name', 'spare', '--no-activate')).toMatchObject({ name: 'spare', active: false });
      const listed = await loupe('models', 'list');
      expect(listed.active).toBe('clip-vit-tiny');
      expect(listed.packs.map((p: { name: string }) => p.name)).toEqual(['clip-vit-tiny', 'spare']);
      expect(await loupe('models', 'activate', '--name', 'spare')).toEqual({ active: 'spare' });
      expect(await loupe('models', 'remove', 'spare', '--dry-run')).toEqual({ dry_run: true, removed: 'spare', was_active: true });
      expect((await loupe('models', 'list')).active).toBe('spare');
      await fs.access(path.join(scratch, 'data/models/spare/pack.json'));
      expect(await loupe('models', 'remove', '--name', 'spare')).toEqual({ removed: 'spare', was_active: true });
      expect((await loupe('models', 'list')).active).toBeNull();

      await fs.rm(path.join(src, 'tokenizer.json'));
      const broken = await inProcess(env, ['models', 'add', src, '--name', 'broken']);
      expect(broken).toMatchObject({ code: 1, stdout: '' });
      expect(broken.stderr).toMatch(/loupe: .* has no tokenizer\.json/);
      expect((await inProcess(env, ['models', 'add'])).code).toBe(2);
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
  }, 90_000); // eight CLI processes, each starting tsx
});

describe('admin CLI: src/cli.ts run as a script', () => {
  it('does what bin/loupe.js does (h310: `npx tsx src/cli.ts …` printed nothing and exited 0)', async () => {
    const cli = path.resolve(import.meta.dirname, '../src/cli.ts');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', cli, '--version']);
    expect(stdout).toMatch(/^loupe \d+\.\d+\.\d+ \(Node v\d+/);
    const usage = await run(process.execPath, ['--import', 'tsx', cli, 'bogus']).then(() => undefined, (err: { code: number; stderr: string }) => err);
    expect([usage?.code, usage?.stderr]).toEqual([2, expect.stringMatching(/^loupe: unknown command "bogus"/)]);
  }, 30_000); // two processes under tsx
});
