import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { AccountStore } from './account-store.ts';
import { RequestStore } from './request-store.ts';

describe.each(backends)('webhook deliveries claimed (%s)', (backend) => {
  let t: TestStore;
  let requests: RequestStore;
  let accounts: AccountStore;
  beforeAll(async () => {
    t = await openTestStore(backend);
    requests = new RequestStore(t.store);
    accounts = new AccountStore(t.store);
  });
  afterAll(async () => {
    await t.close();
  });

  /** An account with `n` finished requests whose webhooks are due. */
  const withDue = async (n: number): Promise<string> => {
    const accountId = randomUUID();
    const workspaceId = randomUUID();
    await accounts.createAccount({ id: accountId, name: 'hooks', credits: 0, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    for (let i = 0; i < n; i++) {
      await requests.insert({ id: randomUUID(), accountId, workspaceId, type: 't', endpoint: 'e', request: {}, options: {}, charged: 0, webhook: { url: 'http://127.0.0.1/hook', headers: {} }, expiresAt: Date.now() + 3_600_000, inputs: new Map() });
    }
    for (const { row, token } of await requests.claim(n, 60_000)) await requests.complete(row.id, token, { response: {}, media: [], refund: 0, webhookAt: Date.now() - 1000 });
    return accountId;
  };

  it("leaves an account's deliveries beyond its share in flight to other accounts", async () => {
    const slow = await withDue(10);
    const other = await withDue(1);
    const claimed: string[] = [];
    for (let i = 0; i < 5; i++) claimed.push(...(await requests.claimWebhooks(2, 60_000, Date.now(), 4)).map((r) => r.accountId));
    // the slow account's share is 4 in flight; the other account's delivery is claimed beside them
    expect(claimed.filter((a) => a === slow)).toHaveLength(4);
    expect(claimed.filter((a) => a === other)).toHaveLength(1);
    // without a share, the rest is claimed
    expect((await requests.claimWebhooks(20, 60_000)).filter((r) => r.accountId === slow)).toHaveLength(6);
  });

  it('counts an attempt when it is claimed, so one cut short by a crash is not numbered again', async () => {
    const account = await withDue(1);
    const [first] = (await requests.claimWebhooks(10, 1_000)).filter((r) => r.accountId === account);
    expect(first!.webhookAttempts).toBe(1);
    // the node died mid-delivery: its lease runs out and another node claims it
    const [again] = (await requests.claimWebhooks(10, 1_000, Date.now() + 2_000)).filter((r) => r.accountId === account);
    expect(again!.webhookAttempts).toBe(2);
    await requests.webhookAttempt(again!.id, { state: 'delivered', error: null, nextAt: null });
    expect((await requests.get(again!.id))!.webhookAttempts).toBe(2);
  });
});
