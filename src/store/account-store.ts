import { sql } from 'kysely';
import type { Store } from './database.ts';
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

  /** Debits only when the balance covers the price, in one statement so concurrent calls never overdraw. */
  async debit(accountId: string, amount: number): Promise<boolean> {
    const res = await this.store.db
      .updateTable('accounts')
      .set({ credits: sql`credits - ${amount}` })
      .where('id', '=', accountId)
      .where('credits', '>=', amount)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
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
