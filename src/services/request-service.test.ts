import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import type { HandlerRegistry, JobHandler } from '../queue/job-handler.ts';
import type { QueueSignal } from '../queue/queue-signal.ts';
import { AccountStore } from '../store/account-store.ts';
import { RequestStore } from '../store/request-store.ts';
import { RequestService, type RequestCaller } from './request-service.ts';
import type { AddressPolicy } from '../media/address-policy.ts';
import { loopTurnsDuring } from '../../test/helpers/loop-turns.ts';

const handler = { accepts: async () => true, endpoints: async () => ['e'], maxRecords: () => 10 } as unknown as JobHandler;
const registry = { get: () => handler, types: () => ['t'] } as unknown as HandlerRegistry;
const signal = { notify() {} } as unknown as QueueSignal;

describe.each(backends)('submitting asynchronous requests (%s)', (backend) => {
  let t: TestStore;
  let accounts: AccountStore;
  let service: RequestService;
  beforeAll(async () => {
    t = await openTestStore(backend);
    accounts = new AccountStore(t.store);
    service = new RequestService(new RequestStore(t.store), registry, signal, {} as AddressPolicy, { retentionMs: 3_600_000, maxImageBytes: 1e6, priceOf: () => 1, resendGapMs: 60_000 }, {} as ConstructorParameters<typeof RequestService>[5]);
  });
  afterAll(async () => {
    await t.close();
  });

  const newCaller = async (credits: number): Promise<RequestCaller> => {
    const id = randomUUID();
    const workspaceId = randomUUID();
    await accounts.createAccount({ id, name: 'race', credits, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    return { accountId: id, workspaceId, baseUrl: 'http://127.0.0.1', services: [] };
  };
  const input = { type: 't', endpoint: 'e', records: [{ _id: 'a', _url: 'http://127.0.0.1/a.jpg' }] };
  const outcome = (r: PromiseSettledResult<{ replayed?: true }>) => (r.status === 'fulfilled' ? (r.value.replayed ? 'replayed' : 'created') : String((r.reason as { status?: number }).status));

  it('answers one key sent twice at once by an account that can pay for one as a request and its replay, never a 402', async () => {
    // Reads no longer wait for another submit's transaction (SQLite's reader connection; PostgreSQL
    // always): the debit is in the insert's transaction, so the submit that finds the credits gone
    // finds the request that took them.
    for (let i = 0; i < 10; i++) {
      const caller = await newCaller(1);
      const pair = await Promise.allSettled([service.submit(caller, input, 'race'), service.submit(caller, input, 'race')]);
      expect(pair.map(outcome).sort()).toEqual(['created', 'replayed']);
      expect((await accounts.getAccount(caller.accountId))!.credits).toBe(0);
    }
  });

  it('refuses a submit the account cannot pay for with a 402 that stores nothing and debits nothing', async () => {
    const caller = await newCaller(1);
    const two = { ...input, records: [...input.records, { _id: 'b', _url: 'http://127.0.0.1/b.jpg' }] };
    await expect(service.submit(caller, two, 'too-dear')).rejects.toMatchObject({ status: 402, code: 'insufficient_credits', message: 'Not enough credits: requests.t costs 2 credits.' });
    expect((await accounts.getAccount(caller.accountId))!.credits).toBe(1);
    expect((await service.list(caller.accountId, { page: 1, pageSize: 10 })).count).toBe(0);
    // the key was not taken: the same key with a body the account can pay for is a new request
    expect(outcome((await Promise.allSettled([service.submit(caller, input, 'too-dear')]))[0]!)).toBe('created');
    expect((await accounts.getAccount(caller.accountId))!.credits).toBe(0);
  });

  it('stores a large upload in parts of 1 MiB, letting the event loop turn while it decodes, hashes and writes them; read back whole, replayed by its key, dropped part by part when done (h286)', async () => {
    const store = new RequestStore(t.store);
    const big = new RequestService(store, registry, signal, {} as AddressPolicy, { retentionMs: 3_600_000, maxImageBytes: 8 << 20, priceOf: () => 1, resendGapMs: 60_000 }, {} as ConstructorParameters<typeof RequestService>[5]);
    const caller = await newCaller(10);
    const images = [Buffer.from(Array.from({ length: 3.5 * 1024 * 1024 }, (_, i) => (i * 7919) % 251)), Buffer.from('a small one')];
    const body = { type: 't', endpoint: 'e', records: images.map((b, i) => ({ _id: `r${i}`, _base64: b.toString('base64') })) };
    // turns of the loop while it submits: at once (as before), none until its end
    const { result: first, turns } = await loopTurnsDuring(() => big.submit(caller, body, 'big-one'));
    // 5 slices decoded, 5 hashed, its parts written in 2 transactions (STAGE_SLICE_BYTES) with a turn after each: 11
    // turns counted on SQLite
    expect(turns).toBeGreaterThanOrEqual(11);
    const parts = await t.store.db.selectFrom('async_request_inputs').select(['idx', 'part']).where('request_id', '=', first.id).orderBy('idx').orderBy('part').execute();
    expect(parts).toEqual([0, 1, 2, 3].map((part) => ({ idx: 0, part })).concat([{ idx: 1, part: 0 }]));
    const back = await store.inputs(first.id);
    expect([...back.keys()]).toEqual([0, 1]);
    expect(back.get(0)!.equals(images[0]!)).toBe(true);
    expect(back.get(1)!.equals(images[1]!)).toBe(true);
    // the key's hash, made in steps, is the body's: the same body again is its replay, another a 422
    expect(await big.submit(caller, body, 'big-one')).toMatchObject({ id: first.id, replayed: true });
    await expect(big.submit(caller, { ...body, records: body.records.slice(0, 1) }, 'big-one')).rejects.toMatchObject({ status: 422 });
    const claims = await store.claim(1000, 60_000);
    const mine = claims.find((c) => c.row.id === first.id)!;
    expect(await store.complete(mine.row.id, mine.token, { response: { records: [] }, media: [], refund: 0, webhookAt: null })).toBe(true);
    expect(await t.store.db.selectFrom('async_request_inputs').select('idx').where('request_id', '=', first.id).execute()).toEqual([]);
  });
});
