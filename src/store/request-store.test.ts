import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { AccountStore } from './account-store.ts';
import { RequestStore } from './request-store.ts';
import type { Kysely } from 'kysely';
import type { Database } from './database.ts';

/** A store of its own for a describe block, open for its tests. */
function storesFor(backend: (typeof backends)[number]): { requests: RequestStore; accounts: AccountStore } {
  let t: TestStore;
  const s = {} as { requests: RequestStore; accounts: AccountStore };
  beforeAll(async () => {
    t = await openTestStore(backend);
    s.requests = new RequestStore(t.store);
    s.accounts = new AccountStore(t.store);
  });
  afterAll(async () => {
    await t.close();
  });
  return s;
}

describe.each(backends)('webhook deliveries claimed (%s)', (backend) => {
  const stores = storesFor(backend);

  /** An account with `n` finished requests whose webhooks are due. */
  const withDue = async (n: number): Promise<string> => {
    const accountId = randomUUID();
    const workspaceId = randomUUID();
    await stores.accounts.createAccount({ id: accountId, name: 'hooks', credits: 0, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    for (let i = 0; i < n; i++) {
      await stores.requests.insert({ id: randomUUID(), accountId, workspaceId, type: 't', endpoint: 'e', request: {}, options: {}, charged: 0, webhook: { url: 'http://127.0.0.1/hook', headers: {} }, expiresAt: Date.now() + 3_600_000, inputs: new Map() });
    }
    for (const { row, token } of await stores.requests.claim(n, 60_000)) await stores.requests.complete(row.id, token, { response: {}, media: [], refund: 0, webhookAt: Date.now() - 1000 });
    return accountId;
  };

  it("leaves an account's deliveries beyond its share in flight to other accounts", async () => {
    const slow = await withDue(10);
    const other = await withDue(1);
    const claimed: string[] = [];
    for (let i = 0; i < 5; i++) claimed.push(...(await stores.requests.claimWebhooks(2, 60_000, Date.now(), 4)).map((r) => r.accountId));
    // the slow account's share is 4 in flight; the other account's delivery is claimed beside them
    expect(claimed.filter((a) => a === slow)).toHaveLength(4);
    expect(claimed.filter((a) => a === other)).toHaveLength(1);
    // without a share, the rest is claimed
    expect((await stores.requests.claimWebhooks(20, 60_000)).filter((r) => r.accountId === slow)).toHaveLength(6);
  });

  it("claims no more of an account than its share leaves: 3 in flight and a claim of 4 take 1 (h239: they made 7)", async () => {
    const busy = await withDue(8);
    expect(await stores.requests.claimWebhooks(3, 60_000, Date.now(), 4)).toHaveLength(3);
    const next = await stores.requests.claimWebhooks(4, 60_000, Date.now(), 4);
    expect(next.filter((r) => r.accountId === busy)).toHaveLength(1);
    expect((await stores.requests.claimWebhooks(4, 60_000, Date.now(), 4)).filter((r) => r.accountId === busy)).toHaveLength(0);
    await stores.requests.deleteForAccount(busy);
  });

  it("an account at its share with a backlog larger than a claim's window holds back no other account's delivery (h243)", async () => {
    const hog = await withDue(60);
    expect((await stores.requests.claimWebhooks(4, 60_000, Date.now(), 4)).filter((r) => r.accountId === hog)).toHaveLength(4);
    const other = await withDue(2);
    const next = await stores.requests.claimWebhooks(4, 60_000, Date.now(), 4);
    expect(next.map((r) => r.accountId)).toEqual([other, other]);
    for (const account of [hog, other]) await stores.requests.deleteForAccount(account);
  });

  it("an account one below its share with a large backlog holds back no other account's delivery either (h246)", async () => {
    const hog = await withDue(60);
    expect((await stores.requests.claimWebhooks(3, 60_000, Date.now(), 4)).filter((r) => r.accountId === hog)).toHaveLength(3);
    const other = await withDue(2);
    const next = await stores.requests.claimWebhooks(4, 60_000, Date.now(), 4);
    expect(next.map((r) => r.accountId).sort()).toEqual([hog, other, other].sort());
    for (const account of [hog, other]) await stores.requests.deleteForAccount(account);
  });

  it('counts an attempt when it is claimed, so one cut short by a crash is not numbered again', async () => {
    const account = await withDue(1);
    const [first] = (await stores.requests.claimWebhooks(10, 1_000)).filter((r) => r.accountId === account);
    expect(first!.webhookAttempts).toBe(1);
    // the node died mid-delivery: its lease runs out and another node claims it
    const [again] = (await stores.requests.claimWebhooks(10, 1_000, Date.now() + 2_000)).filter((r) => r.accountId === account);
    expect(again!.webhookAttempts).toBe(2);
    await stores.requests.webhookAttempt(again!.id, { state: 'delivered', error: null, nextAt: null });
    expect((await stores.requests.get(again!.id))!.webhookAttempts).toBe(2);
  });

  it("keeps a later claim's outcome over a stalled node's, whose lease ran out (h180)", async () => {
    const account = await withDue(1);
    const [stalled] = (await stores.requests.claimWebhooks(10, 1_000)).filter((r) => r.accountId === account);
    const [later] = (await stores.requests.claimWebhooks(10, 1_000, Date.now() + 2_000)).filter((r) => r.accountId === account);
    expect(await stores.requests.webhookAttempt(later!.id, { state: 'delivered', error: null, nextAt: null }, Date.now(), later!.webhookLeaseUntil)).toBe(true);
    // the first node wakes and writes its attempt's failure: dropped
    expect(await stores.requests.webhookAttempt(stalled!.id, { state: 'failed', error: 'the receiver answered HTTP 500', nextAt: null }, Date.now(), stalled!.webhookLeaseUntil)).toBe(false);
    expect((await stores.requests.get(later!.id))!.webhookState).toBe('delivered');
  });

  it('sends a finished delivery again, to a new address where one is given, its attempts counted afresh (h180)', async () => {
    const account = await withDue(1);
    const [row] = (await stores.requests.claimWebhooks(10, 1_000)).filter((r) => r.accountId === account);
    // a pending delivery is left as it is
    expect(await stores.requests.resendWebhook(account, row!.id, null)).toEqual({ state: 'pending' });
    await stores.requests.webhookAttempt(row!.id, { state: 'failed', error: 'the receiver answered HTTP 410', nextAt: null });
    expect(await stores.requests.resendWebhook(randomUUID(), row!.id, null)).toBeNull();
    expect(await stores.requests.resendWebhook(account, row!.id, { url: 'http://127.0.0.1/new', headers: { 'x-key': 'k' } })).toEqual({ state: 'failed' });
    const again = (await stores.requests.get(row!.id))!;
    expect(again).toMatchObject({ webhookState: 'pending', webhookAttempts: 0, webhookLastError: null, webhook: { url: 'http://127.0.0.1/new', headers: { 'x-key': 'k' } } });
    const [claimed] = (await stores.requests.claimWebhooks(10, 1_000)).filter((r) => r.accountId === account);
    expect(claimed!.webhookAttempts).toBe(1);
    // a request not DONE yet: its webhook waits for it
    const queued = randomUUID();
    await stores.requests.insert({ id: queued, accountId: account, workspaceId: row!.workspaceId, type: 't', endpoint: 'e', request: {}, options: {}, charged: 0, webhook: { url: 'http://127.0.0.1/hook', headers: {} }, expiresAt: Date.now() + 3_600_000, inputs: new Map() });
    expect(await stores.requests.resendWebhook(account, queued, null)).toEqual({ state: 'waiting' });
    expect((await stores.requests.get(queued))!.webhookState).toBeNull();
  });
});

describe.each(backends)('requests claimed (%s)', (backend) => {
  const stores = storesFor(backend);

  const account = async (): Promise<{ accountId: string; workspaceId: string }> => {
    const accountId = randomUUID();
    const workspaceId = randomUUID();
    await stores.accounts.createAccount({ id: accountId, name: 'queue', credits: 0, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    return { accountId, workspaceId };
  };
  const submit = async (a: { accountId: string; workspaceId: string }, type = 't'): Promise<string> => {
    const id = randomUUID();
    await stores.requests.insert({ id, ...a, type, endpoint: 'e', request: {}, options: {}, charged: 0, webhook: null, expiresAt: Date.now() + 3_600_000, inputs: new Map() });
    return id;
  };

  it("takes accounts in turn, so one account's backlog does not hold another's request behind it", async () => {
    const busy = await account();
    const quiet = await account();
    const backlog: string[] = [];
    for (let i = 0; i < 6; i++) backlog.push(await submit(busy));
    const late = await submit(quiet);
    const order: string[] = [];
    for (let i = 0; i < 4; i++) order.push(...(await stores.requests.claim(1, 60_000)).map((c) => c.row.id));
    // the first of the backlog runs; the quiet account's one request is next, though submitted last
    expect(order).toEqual([backlog[0], late, backlog[1], backlog[2]]);
    // one account alone: submission order
    const rest: string[] = [];
    for (let i = 0; i < 3; i++) rest.push(...(await stores.requests.claim(1, 60_000)).map((c) => c.row.id));
    expect(rest).toEqual(backlog.slice(3));
    expect(await stores.requests.claim(1, 60_000)).toEqual([]);
  });

  it("counts an account's running requests against its turn, and takes a dead worker's request again", async () => {
    const a = await account();
    const b = await account();
    const a1 = await submit(a);
    const a2 = await submit(a);
    const [first] = await stores.requests.claim(1, 60_000);
    expect(first!.row.id).toBe(a1);
    const b1 = await submit(b);
    // a1 runs: b1's turn (1) comes before a2's (1 + 1 running)
    expect((await stores.requests.claim(1, 60_000))[0]!.row.id).toBe(b1);
    expect((await stores.requests.claim(1, 60_000))[0]!.row.id).toBe(a2);
    // every lease run out (their workers died): the oldest is taken again first
    const later = Date.now() + 120_000;
    // one at a time, so the order taken is seen (a claim of several answers in submission order)
    const again: { id: string; attempts: number }[] = [];
    for (let i = 0; i < 100; i++) {
      const [c] = await stores.requests.claim(1, 60_000, later);
      if (!c) break;
      if ([a1, a2, b1].includes(c.row.id)) again.push({ id: c.row.id, attempts: c.row.attempts });
    }
    // a's first, then b's (a now runs one), then a's second
    expect(again.map((c) => c.id)).toEqual([a1, b1, a2]);
    expect(again.map((c) => c.attempts)).toEqual([2, 2, 2]);
  });

  it('passes over skipped types but still takes turns among the rest', async () => {
    const a = await account();
    const b = await account();
    const long = await submit(a, 'long');
    const a1 = await submit(a);
    const b1 = await submit(b);
    const got = (await stores.requests.claim(2, 60_000, Date.now(), ['long'])).map((c) => c.row.id);
    expect(got).toEqual([a1, b1]);
    expect((await stores.requests.claim(1, 60_000))[0]!.row.id).toBe(long);
  });

  it('gives concurrent claims different requests, each one, from a single account\'s line', async () => {
    const a = await account();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await submit(a));
    const got = (await Promise.all([0, 1, 2, 3].map(() => stores.requests.claim(1, 60_000)))).map((c) => c.map((x) => x.row.id));
    expect(got.every((c) => c.length === 1)).toBe(true);
    expect(new Set(got.flat()).size).toBe(4);
    expect(got.flat().every((id) => ids.includes(id))).toBe(true);
  });
});

describe.each(backends)('requests that end: finished, swept (%s)', (backend) => {
  const stores = storesFor(backend);

  /** An account with `credits`, and requests of it to insert (charged `charged`, with `inputs`). */
  const account = async (credits: number) => {
    const accountId = randomUUID();
    const workspaceId = randomUUID();
    await stores.accounts.createAccount({ id: accountId, name: 'ends', credits, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    const request = (type: string, charged = 0, inputs = new Map<number, Buffer>()) => ({ id: randomUUID(), accountId, workspaceId, type, endpoint: 'e', request: {}, options: {}, charged, webhook: null, expiresAt: Date.now() + 3_600_000, inputs });
    return { accountId, request };
  };
  const finish = async (id: string) => {
    const [claimed] = (await stores.requests.claim(10, 60_000)).filter((c) => c.row.id === id);
    return stores.requests.complete(id, claimed!.token, { response: {}, media: [], refund: 0, webhookAt: null });
  };

  it('gives back what a request still charged when its time ran out before it finished; a finished one keeps its charge', async () => {
    const { accountId, request } = await account(10);
    const finished = request('finished', 2);
    await stores.requests.insert(finished);
    await finish(finished.id);
    // queued for days: no worker for its type ran
    const waiting = request('nobody-runs-this', 3);
    await stores.requests.insert(waiting);
    expect((await stores.accounts.getAccount(accountId))!.credits).toBe(5);
    const swept = await stores.requests.sweep(Date.now() + 2 * 3_600_000);
    expect(swept.refunded).toBe(3);
    expect(await stores.requests.get(waiting.id)).toBeUndefined();
    expect((await stores.accounts.getAccount(accountId))!.credits).toBe(8);
  });

  it('a retention shortened since holds for requests submitted before it (h142: kept for the old 7 days)', async () => {
    const { request } = await account(0);
    const week = 7 * 86_400_000;
    const old = { ...request('old-policy'), expiresAt: Date.now() + week };
    await stores.requests.insert(old);
    await finish(old.id);
    // under the same retention nothing moves; a day's retention ends a request submitted an hour and a day ago
    expect((await stores.requests.sweep(Date.now(), 500, week)).deleted).toBe(0);
    expect((await stores.requests.get(old.id))!.expiresAt).toBeGreaterThan(Date.now() + week - 60_000);
    // and says how many it brought forward (logged by the sweep: one node's shorter setting cuts every node's, h239)
    expect(await stores.requests.sweep(Date.now(), 500, 86_400_000)).toMatchObject({ deleted: 0, shortened: 1 });
    expect(await stores.requests.sweep(Date.now(), 500, 86_400_000)).toMatchObject({ deleted: 0, shortened: 0 });
    const shortened = (await stores.requests.get(old.id))!.expiresAt;
    expect(Math.abs(shortened - (Date.now() + 86_400_000))).toBeLessThan(60_000);
    expect((await stores.requests.sweep(Date.now() + 86_400_000 + 60_000, 500, 86_400_000)).deleted).toBe(1);
    expect(await stores.requests.get(old.id)).toBeUndefined();
  });

  it('keeps none of its uploaded images once completed; the sweep removes those a stopped process left, and no queued request\'s', async () => {
    const { request } = await account(0);
    const done = request('inputs', 0, new Map([[0, Buffer.alloc(1000, 1)], [1, Buffer.alloc(2000, 2)]]));
    await stores.requests.insert(done);
    expect((await stores.requests.inputs(done.id)).size).toBe(2);
    expect(await finish(done.id)).toBe(true);
    expect((await stores.requests.inputs(done.id)).size).toBe(0);
    // as a process stopped between the completion and the deletion leaves them
    const queued = request('queued-inputs', 0, new Map([[0, Buffer.alloc(10)]]));
    await stores.requests.insert(queued);
    const db = (stores.requests as unknown as { db: Kysely<Database> }).db;
    await db.insertInto('async_request_inputs').values({ request_id: done.id, idx: 7, bytes: Buffer.alloc(500, 7) }).execute();
    await stores.requests.sweep();
    expect((await stores.requests.inputs(done.id)).size).toBe(0);
    expect((await stores.requests.inputs(queued.id)).size).toBe(1);
  });
});

describe.each(backends)('requests listed newest first (%s)', (backend) => {
  const stores = storesFor(backend);

  it("lists an account's concurrent submits in the order of their `created` (h94: PostgreSQL's were out of order by up to 63 ms)", async () => {
    const accountId = randomUUID();
    const workspaceId = randomUUID();
    await stores.accounts.createAccount({ id: accountId, name: 'many', credits: 1_000, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    // priced and free submits both: a free one holds no account row by its debit
    await Promise.all(Array.from({ length: 60 }, (_, i) => stores.requests.insert({ id: randomUUID(), accountId, workspaceId, type: 't', endpoint: 'e', request: {}, options: {}, charged: i % 2, webhook: null, expiresAt: Date.now() + 3_600_000, inputs: new Map() })));
    const { count, rows } = await stores.requests.list({ accountId, limit: 100, offset: 0 });
    expect(count).toBe(60);
    const created = rows.map((r) => r.createdAt);
    expect(created).toEqual([...created].sort().reverse());
  });
});

describe.each(backends)('a request as its submit answers it (%s)', (backend) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(backend);
  });
  afterAll(async () => {
    await t.close();
  });

  it('is the row as stored, CREATED, though a queue worker claims it the moment it is committed (a 201 said PROCESSING)', async () => {
    // a worker that claims whatever it can read before anyone reads it back: the read after the commit came second
    const racing = new (class extends RequestStore {
      override async get(id: string) {
        await this.claim(10, 60_000);
        return super.get(id);
      }
    })(t.store);
    const accounts = new AccountStore(t.store);
    const accountId = randomUUID();
    const workspaceId = randomUUID();
    await accounts.createAccount({ id: accountId, name: 'race', credits: 5, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    const id = randomUUID();
    const row = await racing.insert({ id, accountId, workspaceId, type: 't', endpoint: 'e', request: {}, options: {}, charged: 1, webhook: null, expiresAt: Date.now() + 3_600_000, inputs: new Map() });
    expect(row).toMatchObject({ id, status: 'CREATED' });
    // the worker takes it at the next read: what the submit answered was the row as stored
    expect((await racing.get(id))?.status).toBe('PROCESSING');
  });
});
