import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AccountRecord, AccountStore, WorkspaceRecord } from '../store/account-store.ts';
import { type CallHold, creditHold } from '../util/credit-hold-scope.ts';
import { ServiceError, isUuid, notFound } from './errors.ts';

/**
 * Services an account can be granted. `*` grants every service, including ones added later.
 * Routes name their service with this type, so a route cannot use a name the CLI does not know.
 */
export const knownServices = ['cardstream', 'image_matching', 'descriptor', 'identity', 'visual_search', 'text_search', 'requests', 'collectibles'] as const;
export type ServiceName = (typeof knownServices)[number];
export const allServices = '*';

/** Whether an account with these services may use `service` (`*` is every one). */
export const serviceEnabled = (services: readonly string[], service: string): boolean => services.includes(allServices) || services.includes(service);
/** Every service this server has, and whether an account with these services may use it. */
export const servicesState = (services: readonly string[]): Record<ServiceName, boolean> => Object.fromEntries(knownServices.map((s) => [s, serviceEnabled(services, s)])) as Record<ServiceName, boolean>;

export interface Principal {
  tokenId: string;
  account: AccountRecord;
  defaultWorkspaceId: string;
}

export interface CreatedAccount {
  account: string;
  workspace: string;
  token: string;
  /** The token's id: what `token revoke --id` takes without the token itself. */
  token_id: string;
}

const tokenPrefix = 'lp_';

/**
 * How long a call's charge is held before the sweep takes its process for stopped and gives it
 * back: far past any synchronous call (the longest, an upscale, stops at 10 minutes).
 */
export const CREDIT_HOLD_MS = 60 * 60_000;

/**
 * Most credits an account holds (a million million): what an operator sets or adds is bounded, so no
 * balance leaves the integers JSON and both stores keep exactly.
 */
export const maxCredits = 1_000_000_000_000;

/** A 401 says how to authenticate (RFC 9110 §11.6.1): the token scheme the API takes (`Bearer` too). */
const challenge = { 'www-authenticate': 'Token realm="Loupe"' };

/** The 402 of a charge the account's credits cannot cover. */
export function insufficientCredits(priceKey: string, price: number): ServiceError {
  return new ServiceError(402, 'insufficient_credits', `Not enough credits: ${priceKey} costs ${price} credit${price === 1 ? '' : 's'}.`);
}

/** Tokens carry 256 random bits, so a fast hash is enough: nothing to brute-force. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function newToken(): string {
  return tokenPrefix + randomBytes(32).toString('base64url');
}

export function parseServices(list: string): string[] {
  const names = list.split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) {
    if (n !== allServices && !(knownServices as readonly string[]).includes(n)) {
      throw new ServiceError(400, 'unknown_service', `Unknown service "${n}". Known services: ${knownServices.join(', ')} (or * for all).`);
    }
  }
  return [...new Set(names)];
}

/** A header that came is not "not provided": it lacked its scheme, or its token (h272: a bare token was told nothing came). */
function notProvided(header: string | undefined): string {
  const send = 'Send the header "Authorization: Token <token>".';
  const given = header?.trim() ?? '';
  if (!given) return `Authentication credentials were not provided. ${send}`;
  if (/^(?:Token|Bearer)$/i.test(given)) return `The Authorization header names its scheme but no token. ${send}`;
  if (/^(?:Token|Bearer)\s/i.test(given)) return `The Authorization header holds more than one word after its scheme. ${send}`;
  if (!/\s/.test(given)) return `The Authorization header holds no scheme before the token. ${send}`;
  return `The Authorization header's scheme is not Token (or Bearer). ${send}`;
}

export class AccountService {
  constructor(private readonly accounts: AccountStore) {}

  async createAccount(input: { name: string; credits: number; services?: string[] }): Promise<CreatedAccount> {
    if (!input.name.trim()) throw new ServiceError(400, 'invalid_request', 'An account needs a non-empty name.');
    if (!Number.isSafeInteger(input.credits) || input.credits < 0 || input.credits > maxCredits) throw new ServiceError(400, 'invalid_request', `Credits must be an integer from 0 to ${maxCredits}.`);
    const token = newToken();
    const created = { account: randomUUID(), workspace: randomUUID(), token, token_id: randomUUID() };
    await this.accounts.createAccount({
      id: created.account,
      name: input.name.trim(),
      credits: input.credits,
      services: input.services ?? [allServices],
      workspaceId: created.workspace,
      tokenId: created.token_id,
      tokenHash: hashToken(token),
    });
    return created;
  }

  async getAccount(accountId: string): Promise<AccountRecord> {
    const account = isUuid(accountId) ? await this.accounts.getAccount(accountId) : undefined;
    if (!account) throw notFound(`Account ${accountId}`);
    return account;
  }

  listAccounts(): Promise<AccountRecord[]> {
    return this.accounts.listAccounts();
  }

  async addWorkspace(accountId: string, name = 'workspace'): Promise<{ workspace: string }> {
    if (!name.trim()) throw new ServiceError(400, 'invalid_request', 'A workspace needs a non-empty name.');
    await this.getAccount(accountId);
    const id = randomUUID();
    await this.accounts.addWorkspace({ id, accountId, name });
    return { workspace: id };
  }

  async listWorkspaces(accountId: string): Promise<WorkspaceRecord[]> {
    await this.getAccount(accountId);
    return this.accounts.listWorkspaces(accountId);
  }

  /** An account's tokens by id and name (the tokens themselves are not kept), revoked ones too. */
  async listTokens(accountId: string): Promise<{ tokens: { token_id: string; name: string; created_at: string; revoked_at: string | null }[] }> {
    await this.getAccount(accountId);
    return { tokens: (await this.accounts.listTokens(accountId)).map((t) => ({ token_id: t.id, name: t.name, created_at: t.createdAt, revoked_at: t.revokedAt })) };
  }

  async addToken(accountId: string, name = ''): Promise<{ token: string; token_id: string }> {
    await this.getAccount(accountId);
    const token = newToken();
    const id = randomUUID();
    await this.accounts.addToken({ id, accountId, tokenHash: hashToken(token), name });
    return { token, token_id: id };
  }

  /** Accepts the token itself or its id (as printed by `token add`). */
  async revokeToken(tokenOrId: string): Promise<{ revoked: boolean }> {
    const revoked = isUuid(tokenOrId)
      ? await this.accounts.revokeToken({ id: tokenOrId })
      : await this.accounts.revokeToken({ tokenHash: hashToken(tokenOrId) });
    if (!revoked) throw notFound('Active token');
    return { revoked };
  }

  /**
   * A token gone for good, live or revoked, with the name it was given (`loupe token delete`): a revoked token kept its
   * name, often a person's, with no way to erase it short of the whole account (h235).
   */
  /** The token `deleteToken` would delete (`--dry-run`): its id, account and name, live or revoked. */
  async tokenToDelete(tokenOrId: string): Promise<{ token_id: string; account: string; name: string; created_at: string; revoked_at: string | null }> {
    const found = isUuid(tokenOrId) ? await this.accounts.findToken({ id: tokenOrId }) : await this.accounts.findToken({ tokenHash: hashToken(tokenOrId) });
    if (!found) throw notFound('Token');
    return { token_id: found.id, account: found.accountId, name: found.name, created_at: found.createdAt, revoked_at: found.revokedAt };
  }

  async deleteToken(tokenOrId: string): Promise<{ deleted: boolean }> {
    const deleted = isUuid(tokenOrId) ? await this.accounts.deleteToken({ id: tokenOrId }) : await this.accounts.deleteToken({ tokenHash: hashToken(tokenOrId) });
    if (!deleted) throw notFound('Token');
    return { deleted };
  }

  async addCredits(accountId: string, amount: number): Promise<{ account: string; credits: number }> {
    if (!Number.isSafeInteger(amount) || Math.abs(amount) > maxCredits) throw new ServiceError(400, 'invalid_request', `Credits to add must be an integer from -${maxCredits} to ${maxCredits}.`);
    const before = await this.getAccount(accountId);
    const credits = await this.accounts.adjustCredits(accountId, amount, maxCredits);
    if (credits === undefined) throw notFound(`Account ${accountId}`);
    if (credits === 'out_of_range') throw new ServiceError(400, 'invalid_request', `The balance (${before.credits}) would become ${before.credits + amount}: an account holds from 0 to ${maxCredits} credits.`);
    return { account: accountId, credits };
  }

  async setServiceState(accountId: string, services: string[], enabled: boolean): Promise<{ account: string; services: string[] }> {
    const account = await this.getAccount(accountId);
    let current = new Set(account.services);
    if (enabled) {
      for (const s of services) current.add(s);
    } else {
      // Disabling one service of an all-services account leaves it every other known service.
      if (current.has(allServices)) current = new Set(knownServices);
      for (const s of services) {
        if (s === allServices) current.clear();
        current.delete(s);
      }
    }
    // every known service enabled again (a disable undone) is all services again, so services added in later releases come with it
    const before = new Set(account.services);
    const added = enabled && !before.has(allServices) && services.some((x) => !before.has(x));
    const all = current.has(allServices) || (added && knownServices.every((k) => current.has(k)));
    const list = all ? [allServices] : [...current].sort();
    await this.accounts.setServices(accountId, list);
    return { account: accountId, services: list };
  }

  async authenticate(header: string | undefined): Promise<Principal> {
    const match = header ? /^\s*(?:Token|Bearer)\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw new ServiceError(401, 'not_authenticated', notProvided(header), undefined, challenge);
    const owner = await this.accounts.findTokenOwner(hashToken(match[1]));
    if (!owner) throw new ServiceError(401, 'invalid_token', 'Invalid or revoked token.', undefined, { 'www-authenticate': `${challenge['www-authenticate']}, error="invalid_token"` });
    return owner;
  }

  /** A workspace the account does not own is answered exactly like one that does not exist. */
  async resolveWorkspace(principal: Principal, requested: string | undefined): Promise<string> {
    if (requested === undefined || requested === '') return principal.defaultWorkspaceId;
    if (isUuid(requested)) {
      const id = requested.toLowerCase();
      if (id === principal.defaultWorkspaceId || (await this.accounts.workspaceOwnedBy(id, principal.account.id))) return id;
    }
    throw notFound(`Workspace ${requested}`);
  }

  assertService(principal: Principal, service: string): void {
    if (!serviceEnabled(principal.account.services, service)) {
      throw new ServiceError(403, 'service_not_enabled', `The ${service} service is not enabled for this account.`);
    }
  }

  /** Within a call (its hold in async context, or `hold`), the charge is held until the call answers. */
  async charge(accountId: string, priceKey: string, price: number, callHold = creditHold()): Promise<void> {
    if (price <= 0) return;
    const hold = callHold?.closed ? undefined : callHold;
    const debit = this.accounts.debit(accountId, price, hold && { id: hold.id, due: Date.now() + CREDIT_HOLD_MS });
    if (hold) {
      hold.held = true;
      (hold.pending ??= new Set()).add(debit);
    }
    try {
      if (!(await debit)) throw insufficientCredits(priceKey, price);
    } finally {
      hold?.pending?.delete(debit);
    }
  }

  async refund(accountId: string, price: number, hold = creditHold()): Promise<void> {
    if (price <= 0) return;
    if (hold?.held) await this.accounts.refundHeld(accountId, price, hold.id);
    else await this.accounts.addCredits(accountId, price);
  }

  /** The call's answer reached nobody and it kept nothing: every charge it made goes back; how many credits. */
  async returnHold(hold: CallHold): Promise<number> {
    hold.closed = true;
    if (hold.pending?.size) await Promise.allSettled([...hold.pending]);
    if (!hold.held) return 0;
    hold.held = false;
    return this.accounts.returnHold(hold.id);
  }

  /** The call answered: its charges stand. */
  async settle(hold: CallHold): Promise<void> {
    hold.closed = true;
    // a debit still on its way would write the hold again after its removal
    if (hold.pending?.size) await Promise.allSettled([...hold.pending]);
    if (!hold.held) return;
    hold.held = false;
    try {
      await this.accounts.settleHold(hold.id);
    } catch (err) {
      // the database busy past its wait (an import's long write on a one-core box, h225): the hold, left, would be
      // given back within the hour as a call that never answered, though this one did; removing it is idempotent, so
      // it is tried again in the background, well before it is due
      this.settleLater(hold.id);
      throw err;
    }
  }

  /** Retries of a hold's removal after a failure: after 5 s, 30 s, 2 min and 10 min (holds are due after an hour). */
  private settleLater(holdId: string, attempt = 0): void {
    const waits = AccountService.settleRetryMs;
    if (attempt >= waits.length) return;
    setTimeout(() => {
      this.accounts.settleHold(holdId).catch(() => this.settleLater(holdId, attempt + 1));
    }, waits[attempt]).unref();
  }

  static settleRetryMs = [5_000, 30_000, 120_000, 600_000];
}
