import { describe, expect, it } from 'vitest';
import type { AccountStore, CreditHold } from '../store/account-store.ts';
import { AccountService } from './account-service.ts';

/** The order of a call's hold's writes, with a store that answers when told to. */
function slowStore() {
  const writes: string[] = [];
  let finishDebit: (ok: boolean) => void = () => {};
  const store = {
    debit: (_account: string, _amount: number, hold?: CreditHold) =>
      new Promise<boolean>((resolve) => {
        finishDebit = (ok) => {
          if (ok && hold) writes.push(`hold ${hold.id}`);
          resolve(ok);
        };
      }),
    settleHold: async (id: string) => {
      writes.push(`settle ${id}`);
    },
  } as unknown as AccountStore;
  return { store, writes, finish: (ok: boolean) => finishDebit(ok) };
}

describe('a call\'s credit hold', () => {
  it('is settled after a debit still on its way when the call answered, not before it (which left a hold the sweep gave back)', async () => {
    const { store, writes, finish } = slowStore();
    const accounts = new AccountService(store);
    const hold = { id: 'h1', held: false };
    const charged = accounts.charge('a', 'k', 1, hold);
    const settled = accounts.settle(hold);
    await new Promise((r) => setTimeout(r, 10));
    expect(writes).toEqual([]);
    finish(true);
    await charged;
    await settled;
    expect(writes).toEqual(['hold h1', 'settle h1']);
    // a charge after the answer is not held
    const late = accounts.charge('a', 'k', 1, hold);
    finish(true);
    await late;
    expect(writes).toEqual(['hold h1', 'settle h1']);
  });

  it('is removed again in the background when the database was busy past its wait (h225: an answered call given back as unanswered)', async () => {
    let refusals = 2;
    const settled: string[] = [];
    const store = {
      settleHold: async (id: string) => {
        if (refusals-- > 0) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
        settled.push(id);
      },
    } as unknown as AccountStore;
    const waits = AccountService.settleRetryMs;
    AccountService.settleRetryMs = [20, 20, 20];
    try {
      const accounts = new AccountService(store);
      await expect(accounts.settle({ id: 'h2', held: true })).rejects.toThrow('database is locked');
      await expect.poll(() => settled).toEqual(['h2']);
    } finally {
      AccountService.settleRetryMs = waits;
    }
  });
});
