import { type Kysely, sql } from 'kysely';
import type { Database, Store } from './database.ts';
import { fromBool, fromJson, toIso } from './database.ts';

export interface AccountRecord {
  id: string;
  name: string;
  credits: number;
  services: string[];
  createdAt: string;
}

export interface WorkspaceRecord {
  id: string;
  accountId: string;
  name: string;
  isDefault: boolean;
  createdAt: string;
}

export interface TokenOwner {
  tokenId: string;
  account: AccountRecord;
  defaultWorkspaceId: string;
}

/** Where a call's charges are held until it answers (migration 017). */
export interface CreditHold {
  id: string;
  /** Epoch milliseconds after which the sweep gives the hold back. */
  due: number;
}

export class AccountStore {
  constructor(private readonly store: Store) {}

  async createAccount(input: { id: string; name: string; credits: number; services: string[]; workspaceId: string; tokenId: string; tokenHash: string }): Promise<void> {
    const now = new Date().toISOString();
    await this.store.db.transaction().execute(async (trx) => {
      await trx.insertInto('accounts').values({ id: input.id, name: input.name, credits: input.credits, services: JSON.stringify(input.services), created_at: now }).execute();
      await trx.insertInto('workspaces').values({ id: input.workspaceId, account_id: input.id, name: 'default', is_default: this.bool(true), created_at: now }).execute();
      await trx.insertInto('api_tokens').values({ id: input.tokenId, account_id: input.id, token_hash: input.tokenHash, name: 'default', created_at: now }).execute();
    });
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const row = await this.store.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.toAccount(row);
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const rows = await this.store.db.selectFrom('accounts').selectAll().orderBy('created_at').execute();
    return rows.map((r) => this.toAccount(r));
  }

  async addWorkspace(input: { id: string; accountId: string; name: string }): Promise<void> {
    await this.store.db.insertInto('workspaces').values({ id: input.id, account_id: input.accountId, name: input.name, is_default: this.bool(false), created_at: new Date().toISOString() }).execute();
  }

  async listWorkspaces(accountId: string): Promise<WorkspaceRecord[]> {
    const rows = await this.store.db.selectFrom('workspaces').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
    return rows.map((r) => ({ id: r.id, accountId: r.account_id, name: r.name, isDefault: fromBool(r.is_default) === true, createdAt: toIso(r.created_at) }));
  }

  async workspaceOwnedBy(workspaceId: string, accountId: string): Promise<boolean> {
    const row = await this.store.db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).where('account_id', '=', accountId).executeTakeFirst();
    return row !== undefined;
  }

  async addToken(input: { id: string; accountId: string; tokenHash: string; name: string }): Promise<void> {
    await this.store.db.insertInto('api_tokens').values({ id: input.id, account_id: input.accountId, token_hash: input.tokenHash, name: input.name, created_at: new Date().toISOString() }).execute();
  }

  /** An account's tokens (never the tokens themselves: only their hashes are kept), oldest first. */
  async listTokens(accountId: string): Promise<{ id: string; name: string; createdAt: string; revokedAt: string | null }[]> {
    const rows = await this.store.db.selectFrom('api_tokens').select(['id', 'name', 'created_at', 'revoked_at']).where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: toIso(r.created_at), revokedAt: r.revoked_at === null ? null : toIso(r.revoked_at) }));
  }

  /** Revokes by token id or by the hash of the token itself; returns whether a live token was revoked. */
  async revokeToken(match: { id?: string; tokenHash?: string }): Promise<boolean> {
    let q = this.store.db.updateTable('api_tokens').set({ revoked_at: new Date().toISOString() }).where('revoked_at', 'is', null);
    if (match.id) q = q.where('id', '=', match.id);
    else if (match.tokenHash) q = q.where('token_hash', '=', match.tokenHash);
    else return false;
    const res = await q.executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Deletes a token, live or revoked, by id or by the hash of the token itself; returns whether one went. */
  /** A token by its id or hash, live or revoked (what `token delete --dry-run` names). */
  async findToken(match: { id?: string; tokenHash?: string }): Promise<{ id: string; accountId: string; name: string; createdAt: string; revokedAt: string | null } | undefined> {
    let q = this.store.db.selectFrom('api_tokens').select(['id', 'account_id', 'name', 'created_at', 'revoked_at']);
    if (match.id) q = q.where('id', '=', match.id);
    else if (match.tokenHash) q = q.where('token_hash', '=', match.tokenHash);
    else return undefined;
    const row = await q.executeTakeFirst();
    return row && { id: row.id, accountId: row.account_id, name: row.name, createdAt: toIso(row.created_at), revokedAt: row.revoked_at === null ? null : toIso(row.revoked_at) };
  }

  async deleteToken(match: { id?: string; tokenHash?: string }): Promise<boolean> {
    let q = this.store.db.deleteFrom('api_tokens');
    if (match.id) q = q.where('id', '=', match.id);
    else if (match.tokenHash) q = q.where('token_hash', '=', match.tokenHash);
    else return false;
    const res = await q.executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Every live token of the account revoked (its erasure starts so: no new call adds data). */
  async revokeAllTokens(accountId: string): Promise<number> {
    const res = await this.store.db.updateTable('api_tokens').set({ revoked_at: new Date().toISOString() }).where('account_id', '=', accountId).where('revoked_at', 'is', null).executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /**
   * Deletes the account (its workspaces, tokens and holds go with it) when it holds no session,
   * request or collection any more, whose files and indexes would be left behind by the cascade;
   * false when one is left (made meanwhile by a call already under way).
   */
  async deleteAccountIfEmpty(accountId: string): Promise<boolean> {
    return this.store.db.transaction().execute(async (trx) => {
      const left = await trx
        .selectNoFrom((eb) => [
          eb.exists(eb.selectFrom('collections').select('id').where('account_id', '=', accountId)).as('collections'),
          eb.exists(eb.selectFrom('async_requests').select('id').where('account_id', '=', accountId)).as('requests'),
          eb.exists(eb.selectFrom('card_sessions as s').innerJoin('workspaces as w', 'w.id', 's.workspace_id').select('s.id').where('w.account_id', '=', accountId)).as('sessions'),
        ])
        .executeTakeFirstOrThrow();
      if (Object.values(left).some((v) => v === true || Number(v) === 1)) return false;
      const res = await trx.deleteFrom('accounts').where('id', '=', accountId).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    });
  }

  async getWorkspace(workspaceId: string): Promise<{ id: string; accountId: string; isDefault: boolean } | undefined> {
    const row = await this.store.db.selectFrom('workspaces').select(['id', 'account_id', 'is_default']).where('id', '=', workspaceId).executeTakeFirst();
    return row && { id: row.id, accountId: row.account_id, isDefault: row.is_default === true || Number(row.is_default) === 1 };
  }

  /**
   * Deletes a workspace that is not its account's default when it holds no session or request any more (whose files
   * the cascade would leave behind); false when one is left (made meanwhile by a call already under way).
   */
  async deleteWorkspaceIfEmpty(workspaceId: string): Promise<boolean> {
    return this.store.db.transaction().execute(async (trx) => {
      const left = await trx
        .selectNoFrom((eb) => [
          eb.exists(eb.selectFrom('async_requests').select('id').where('workspace_id', '=', workspaceId)).as('requests'),
          eb.exists(eb.selectFrom('card_sessions').select('id').where('workspace_id', '=', workspaceId)).as('sessions'),
        ])
        .executeTakeFirstOrThrow();
      if (Object.values(left).some((v) => v === true || Number(v) === 1)) return false;
      const res = await trx.deleteFrom('workspaces').where('id', '=', workspaceId).where('is_default', '=', this.bool(false)).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    });
  }

  async findTokenOwner(tokenHash: string): Promise<TokenOwner | undefined> {
    const row = await this.store.db
      .selectFrom('api_tokens as t')
      .innerJoin('accounts as a', 'a.id', 't.account_id')
      .innerJoin('workspaces as w', (j) => j.onRef('w.account_id', '=', 'a.id').on('w.is_default', '=', this.bool(true)))
      .select(['t.id as token_id', 'a.id', 'a.name', 'a.credits', 'a.services', 'a.created_at', 'w.id as workspace_id'])
      .where('t.token_hash', '=', tokenHash)
      .where('t.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    return { tokenId: row.token_id, account: this.toAccount(row), defaultWorkspaceId: row.workspace_id };
  }

  async addCredits(accountId: string, amount: number): Promise<number | undefined> {
    const res = await this.store.db.updateTable('accounts').set({ credits: sql`credits + ${amount}` }).where('id', '=', accountId).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return undefined;
    return (await this.getAccount(accountId))?.credits;
  }

  /**
   * An operator's change of the balance (`loupe credits add`), kept from 0 to `max` in one statement:
   * `'out_of_range'` when the balance would leave it (nothing changed), undefined for no such account.
   */
  async adjustCredits(accountId: string, amount: number, max: number): Promise<number | 'out_of_range' | undefined> {
    const res = await this.store.db
      .updateTable('accounts')
      .set({ credits: sql`credits + ${amount}` })
      .where('id', '=', accountId)
      .where(sql<boolean>`credits + ${amount} >= 0 AND credits + ${amount} <= ${max}`)
      .executeTakeFirst();
    const account = await this.getAccount(accountId);
    if (!account) return undefined;
    return Number(res.numUpdatedRows) === 0 ? 'out_of_range' : account.credits;
  }

  /**
   * Debits only when the balance covers the price, in one statement so concurrent calls never overdraw.
   * With a `hold`, the amount is also added to that hold in the same transaction (migration 017).
   */
  async debit(accountId: string, amount: number, hold?: CreditHold): Promise<boolean> {
    if (!hold) return this.debitIn(this.store.db, accountId, amount);
    if (this.store.dialect === 'postgres') {
      // one statement, one round trip (a transaction of two took 0.6 ms more a call)
      const { rows } = await sql<{ id: string }>`
        WITH debited AS (UPDATE accounts SET credits = credits - ${amount} WHERE id = ${accountId} AND credits >= ${amount} RETURNING id)
        INSERT INTO credit_holds (id, account_id, amount, due) SELECT ${hold.id}, id, ${amount}, ${hold.due} FROM debited
        ON CONFLICT (id) DO UPDATE SET amount = credit_holds.amount + EXCLUDED.amount
        RETURNING id`.execute(this.store.db);
      return rows.length > 0;
    }
    return this.store.db.transaction().execute(async (trx) => {
      if (!(await this.debitIn(trx, accountId, amount))) return false;
      await trx
        .insertInto('credit_holds')
        .values({ id: hold.id, account_id: accountId, amount, due: hold.due })
        .onConflict((oc) => oc.column('id').doUpdateSet({ amount: sql`credit_holds.amount + ${amount}` }))
        .execute();
      return true;
    });
  }

  private async debitIn(db: Kysely<Database>, accountId: string, amount: number): Promise<boolean> {
    const res = await db
      .updateTable('accounts')
      .set({ credits: sql`credits - ${amount}` })
      .where('id', '=', accountId)
      .where('credits', '>=', amount)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Credits given back within a call: its hold shrinks by as much, in the same transaction. */
  async refundHeld(accountId: string, amount: number, holdId: string): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('accounts').set({ credits: sql`credits + ${amount}` }).where('id', '=', accountId).execute();
      await trx.updateTable('credit_holds').set({ amount: sql`amount - ${amount}` }).where('id', '=', holdId).execute();
    });
  }

  /** Everything a call's hold took given back to its account at once (the hold removed); how many credits. */
  async returnHold(holdId: string): Promise<number> {
    return this.store.db.transaction().execute(async (trx) => {
      const h = await trx.selectFrom('credit_holds').select(['account_id', 'amount']).where('id', '=', holdId).executeTakeFirst();
      if (!h) return 0;
      const gone = await trx.deleteFrom('credit_holds').where('id', '=', holdId).executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) return 0;
      const amount = Math.max(0, Number(h.amount));
      if (amount > 0) await trx.updateTable('accounts').set({ credits: sql`credits + ${amount}` }).where('id', '=', h.account_id).execute();
      return amount;
    });
  }

  /** The call answered: what it was charged is kept. */
  async settleHold(holdId: string): Promise<void> {
    await this.store.db.deleteFrom('credit_holds').where('id', '=', holdId).execute();
  }

  /**
   * Holds due by `now` (their calls' processes stopped before answering) given back to their
   * accounts, each removed in the transaction that credits it; how many credits went back.
   */
  async returnDueHolds(now: number, batch = 500): Promise<{ holds: number; credits: number }> {
    let holds = 0;
    let credits = 0;
    for (;;) {
      const due = await this.store.db.selectFrom('credit_holds').select(['id', 'account_id', 'amount']).where('due', '<=', now).orderBy('due').limit(batch).execute();
      if (due.length === 0) return { holds, credits };
      for (const h of due) {
        const back = await this.store.db.transaction().execute(async (trx) => {
          // another process's sweep may have returned it meanwhile: only the one that removes it credits it
          const gone = await trx.deleteFrom('credit_holds').where('id', '=', h.id).executeTakeFirst();
          if (Number(gone.numDeletedRows) === 0) return undefined;
          const amount = Number(h.amount);
          if (amount > 0) await trx.updateTable('accounts').set({ credits: sql`credits + ${amount}` }).where('id', '=', h.account_id).execute();
          return Math.max(0, amount);
        });
        if (back === undefined) continue;
        holds++;
        credits += back;
      }
    }
  }

  async setServices(accountId: string, services: string[]): Promise<boolean> {
    const res = await this.store.db.updateTable('accounts').set({ services: JSON.stringify(services) }).where('id', '=', accountId).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  private bool(v: boolean): number | boolean {
    return this.store.dialect === 'sqlite' ? (v ? 1 : 0) : v;
  }

  private toAccount(row: { id: string; name: string; credits: number | string; services: unknown; created_at: string | Date }): AccountRecord {
    return { id: row.id, name: row.name, credits: Number(row.credits), services: fromJson<string[]>(row.services), createdAt: toIso(row.created_at) };
  }
}
