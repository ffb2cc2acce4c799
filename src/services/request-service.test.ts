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
});
