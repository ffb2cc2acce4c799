/**
 * A large submit writes its images a slice a transaction before the one that makes its request (migration 044, h297):
 * other writers of the process go between the slices, no worker sees the images before the request exists, and a
 * submit killed on the way leaves nothing claimable and nothing the sweep does not remove.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../test/helpers/harness.ts';
import { scratchPgDatabase } from '../../test/helpers/processes.ts';
import { AccountStore } from './account-store.ts';
import { openStore, type Store } from './database.ts';
import { ABANDONED_UPLOAD_MS, RequestStore, STAGE_SLICE_BYTES, type NewRequest } from './request-store.ts';

const root = path.resolve(import.meta.dirname, '../..');
const child = path.join(root, 'test/helpers/request-submit-child.ts');
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe.each(backends)('a large submit written in slices (%s)', (backend) => {
  let store: Store;
  let dataDir: string;
  let pg: { url: string; drop(): Promise<void> } | undefined;
  let requests: RequestStore;
  let accounts: AccountStore;
  beforeAll(async () => {
    dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-upload-staging-'));
    pg = backend === 'postgres' ? await scratchPgDatabase('loupe_upload_staging') : undefined;
    store = await openStore({ dataDir, databaseUrl: pg?.url });
    requests = new RequestStore(store);
    accounts = new AccountStore(store);
  });
  afterAll(async () => {
    await store?.close();
    await pg?.drop();
    await fsp.rm(dataDir, { recursive: true, force: true });
  });

  const newAccount = async (credits: number) => {
    const accountId = randomUUID();
    const workspaceId = randomUUID();
    await accounts.createAccount({ id: accountId, name: 'staging', credits, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    return { accountId, workspaceId };
  };
  const request = (owner: { accountId: string; workspaceId: string }, inputs: Map<number, Buffer>, charged = 1): NewRequest => ({ id: randomUUID(), ...owner, type: 't', endpoint: 'e', request: {}, options: {}, charged, webhook: null, expiresAt: Date.now() + 3_600_000, inputs });
  const upload = (id: string) => store.db.selectFrom('async_request_uploads').select('id').where('id', '=', id).executeTakeFirst();
  const parts = async (id: string) => (await store.db.selectFrom('async_request_inputs').select('part').where('request_id', '=', id).execute()).length;

  it("lets another account's write through while its images are written, and shows no worker the request before they all are", async () => {
    const owner = await newAccount(10);
    const other = await newAccount(0);
    const image = randomBytes(8 * STAGE_SLICE_BYTES);
    const r = request(owner, new Map([[0, image], [1, Buffer.from('small')]]));
    let inserted = false;
    const inserting = requests.insert(r).then((row) => ((inserted = true), row));
    while (!inserted && !(await upload(r.id))) await nextTurn();
    // a synchronous call's debit, as h288 timed: it waited for the whole submit on SQLite
    expect(await accounts.addCredits(other.accountId, 1)).toBe(1);
    expect(inserted).toBe(false);
    expect(await requests.get(r.id)).toBeUndefined();
    expect((await requests.claim(10, 60_000)).map((c) => c.row.id)).not.toContain(r.id);
    const row = await inserting;
    expect(row?.status).toBe('CREATED');
    expect(await upload(r.id)).toBeUndefined();
    expect((await accounts.getAccount(owner.accountId))!.credits).toBe(9);
    const [claimed] = await requests.claim(1, 60_000);
    expect(claimed!.row.id).toBe(r.id);
    const back = await requests.inputs(r.id);
    expect(back.get(0)!.equals(image)).toBe(true);
    expect(back.get(1)!.toString()).toBe('small');
  });

  it('writes nothing for an account that cannot pay, and removes what it staged when the request cannot be made', async () => {
    const poor = await newAccount(0);
    const r = request(poor, new Map([[0, Buffer.alloc(3 * STAGE_SLICE_BYTES, 1)]]));
    expect(await requests.insert(r)).toBeNull();
    expect(await parts(r.id)).toBe(0);
    // its workspace erased meanwhile: the request's foreign key refuses it after its images were staged
    const owner = await newAccount(5);
    const gone = request({ accountId: owner.accountId, workspaceId: randomUUID() }, new Map([[0, Buffer.alloc(3 * STAGE_SLICE_BYTES, 2)]]));
    await expect(requests.insert(gone)).rejects.toThrow();
    expect(await parts(gone.id)).toBe(0);
    expect(await upload(gone.id)).toBeUndefined();
    expect((await accounts.getAccount(owner.accountId))!.credits).toBe(5);
  });

  it('leaves nothing claimable when its process is killed mid-submit, keeps a live submit\'s parts, and sweeps the dead one\'s', async () => {
    const owner = await newAccount(10);
    const id = randomUUID();
    const proc = spawn(process.execPath, ['--import', 'tsx', child, dataDir, pg?.url ?? '-', owner.accountId, owner.workspaceId, id, '64'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => proc.on('exit', (code, signal) => resolve(signal ?? code)));
    const until = Date.now() + 60_000;
    // killed once its first slice is in: 64 MiB is 32 slices, far from done
    while (!(await upload(id)) && !out.includes('done') && Date.now() < until && proc.exitCode === null) await new Promise((r) => setTimeout(r, 2));
    proc.kill('SIGKILL');
    expect(await exited, err).toBe('SIGKILL');
    expect(out).not.toContain('done');

    const staged = await parts(id);
    expect(staged).toBeGreaterThan(0);
    expect(staged).toBeLessThan(64);
    expect(await requests.get(id)).toBeUndefined();
    expect((await requests.claim(10, 60_000)).map((c) => c.row.id)).not.toContain(id);
    expect((await accounts.getAccount(owner.accountId))!.credits).toBe(10);
    // not yet abandoned: a submit as slow as this could still be writing
    expect((await requests.sweep()).abandoned).toBe(0);
    expect(await parts(id)).toBe(staged);
    const swept = await requests.sweep(Date.now() + ABANDONED_UPLOAD_MS + 1000);
    expect(swept.abandoned).toBe(staged);
    expect(await parts(id)).toBe(0);
    expect(await upload(id)).toBeUndefined();
  }, 90_000);
});
