import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { AccountStore } from './account-store.ts';
import { leftOverNotice, leftOverWork } from './left-over-work.ts';
import { RequestStore } from './request-store.ts';

describe.each(backends)('what a stopped process left, said at a start (%s, h96)', (backend) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(backend);
  });
  afterAll(() => t?.close());

  it('counts charges held, jobs whose lease ran out and files due for removal', async () => {
    expect(await leftOverWork(t.store)).toEqual({ held_charges: 0, held_credits: 0, held_charges_in_time: 0, jobs_to_take_up: 0, jobs_in_lease: 0, files_to_remove: 0 });
    const accounts = new AccountStore(t.store);
    const accountId = randomUUID();
    const workspaceId = randomUUID();
    await accounts.createAccount({ id: accountId, name: 'left', credits: 10, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    const now = Date.now();
    // a call's charge its process never answered for (on PostgreSQL counted once past its time: other nodes' calls hold too)
    await accounts.debit(accountId, 2, { id: randomUUID(), due: backend === 'postgres' ? now - 1 : now + 3_600_000 });
    const requests = new RequestStore(t.store);
    await requests.insert({ id: randomUUID(), accountId, workspaceId, type: 't', endpoint: 'e', request: {}, options: {}, charged: 0, webhook: null, expiresAt: now + 3_600_000, inputs: new Map() });
    await requests.claim(1, 10, now - 1_000);
    await sql`INSERT INTO media_deletions (key, due) VALUES (${`${'ab'.repeat(16)}.jpg`}, ${now - 1})`.execute(t.store.db);
    expect(await leftOverWork(t.store, now)).toEqual({ held_charges: 1, held_credits: 2, held_charges_in_time: 0, jobs_to_take_up: 1, jobs_in_lease: 0, files_to_remove: 1 });
    // a charge whose time has not come (a call cut by kill -9 a moment ago): on PostgreSQL said apart, as other nodes' are alike (h275: 0 held)
    await accounts.debit(accountId, 1, { id: randomUUID(), due: now + 3_600_000 });
    expect(await leftOverWork(t.store, now)).toMatchObject(backend === 'postgres' ? { held_charges: 1, held_charges_in_time: 1 } : { held_charges: 2, held_charges_in_time: 0 });
    // the job taken up again by a process that died a second later, its lease still running (a quick restart): said too (h202)
    await requests.claim(1, 60_000, now);
    expect(await leftOverWork(t.store, now + 1_000)).toMatchObject({ jobs_to_take_up: 0, jobs_in_lease: 1 });
  });
});

describe('what the start says of it', () => {
  const none = { held_charges: 0, held_credits: 0, held_charges_in_time: 0, jobs_to_take_up: 0, jobs_in_lease: 0, files_to_remove: 0 };
  it("warns of what a stop surely left; work under way, other nodes' too, is an info line (h278: a cluster's every start warned)", () => {
    expect(leftOverNotice(none)).toBeUndefined();
    expect(leftOverNotice({ ...none, held_charges_in_time: 3, jobs_in_lease: 2 })?.level).toBe('info');
    for (const k of ['held_charges', 'jobs_to_take_up', 'files_to_remove'] as const) expect(leftOverNotice({ ...none, held_charges_in_time: 1, [k]: 1 })?.level, k).toBe('warn');
  });
});
