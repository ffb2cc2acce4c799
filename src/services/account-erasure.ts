import type { MediaStore } from '../media/media-store.ts';
import type { AccountStore } from '../store/account-store.ts';
import type { MediaDeletionStore } from '../store/media-deletions.ts';
import type { RequestStore } from '../store/request-store.ts';
import { flushErased, movedLeftovers, type Store } from '../store/database.ts';
import type { AccountService } from './account-service.ts';
import type { CardSessionService } from './card-session-service.ts';
import type { CollectionService } from './collection-service.ts';
import { ServiceError } from './errors.ts';
import { filesHere } from './media-housekeeping.ts';

export interface ErasedAccount {
  deleted: string;
  collections: number;
  sessions: number;
  requests: number;
  /** Media files removed: sessions' images and thumbnails, requests' inputs and results. */
  files: number;
  /**
   * Files the rows named that were not in this process's media folder: left named in media_deletions for the sweep
   * of a server that has them (a CLI run with another LOUPE_DATA_DIR), or gone already.
   */
  files_not_found: number;
  /** Files this folder holds that could not be removed now (a read-only disk): the server's sweep removes them. Absent when none. */
  files_left?: number;
  /**
   * Files still holding the account as it was before (the embedded database and vector indexes `loupe
   * move-to-postgres` left in the data folder): for the operator to remove. Absent when there are none.
   */
  left_in?: string[];
}

export interface ErasedWorkspace {
  deleted: string;
  account: string;
  sessions: number;
  requests: number;
  files: number;
  files_not_found: number;
  files_left?: number;
}

/** What an erasure would take (`--dry-run`), in its answer's words, with what it holds besides and the collections' ids. */
export interface AccountErasurePlan extends ErasedAccount {
  workspaces: number;
  tokens: number;
  collection_ids: string[];
}

export interface WorkspaceErasurePlan extends ErasedWorkspace {
  refunded: number;
}

/**
 * An account erased for good (`loupe account delete`, a customer's erasure request): its tokens
 * revoked first, so no new call adds data; then its collections (rows, keyword tables, vector
 * indexes), card sessions and asynchronous requests with every file they name; then the account
 * with its workspaces and tokens. The database's own cascade alone left the photos, the vector
 * index files and the keyword tables behind, named by no row.
 */
export class AccountErasure {
  constructor(
    private readonly deps: {
      accounts: AccountService;
      accountStore: AccountStore;
      collections: CollectionService;
      cardSessions: CardSessionService;
      requests: RequestStore;
      media: MediaStore;
      mediaDeletions: MediaDeletionStore;
      store: Store;
      dataDir: string;
    },
  ) {}

  async erase(accountId: string): Promise<ErasedAccount> {
    const { accounts, accountStore, collections, cardSessions, requests } = this.deps;
    await accounts.getAccount(accountId);
    await accountStore.revokeAllTokens(accountId);
    const done: ErasedAccount = { deleted: accountId, collections: 0, sessions: 0, requests: 0, files: 0, files_not_found: 0 };
    // a call already under way when the tokens went may still add a row: looked for again, a few times
    for (let round = 0; round < 5; round++) {
      for (const c of await collections.list(accountId)) {
        const gone = await collections.delete(c.id).catch((err: unknown) => {
          if (!(err instanceof ServiceError && err.status === 404)) throw err;
        });
        // its records' thumbnails (h357)
        if (gone) done.files += gone.files;
        done.collections++;
      }
      for (const w of await accounts.listWorkspaces(accountId)) {
        const erased = await cardSessions.eraseWorkspace(w.id);
        done.sessions += erased.sessions;
        done.files += erased.files;
        done.files_not_found += erased.filesNotFound;
        if (erased.filesLeft) done.files_left = (done.files_left ?? 0) + erased.filesLeft;
      }
      await this.removeRequests(await requests.deleteForAccount(accountId), done);
      if (await accountStore.deleteAccountIfEmpty(accountId)) {
        await flushErased(this.deps.store);
        const left = this.deps.store.dialect === 'postgres' ? movedLeftovers(this.deps.dataDir) : [];
        return left.length ? { ...done, left_in: left } : done;
      }
      await new Promise((r) => setTimeout(r, 200 * (round + 1)));
    }
    throw new ServiceError(409, 'account_busy', `Account ${accountId} kept receiving data while it was erased; its tokens are revoked: run the command again.`);
  }

  /**
   * What {@link erase} would take, read and not changed (`loupe account delete --dry-run`, and the question asked before
   * the erasure at a terminal): its answer's counts (`files` those this media folder holds, `files_not_found` the rest
   * the rows name), with the workspaces and tokens that go with the account and the collections' ids.
   */
  async plan(accountId: string): Promise<AccountErasurePlan> {
    const { accounts, accountStore, collections, cardSessions, requests } = this.deps;
    const account = await accounts.getAccount(accountId);
    const ids = (await collections.list(account.id)).map((c) => c.id);
    const workspaces = await accounts.listWorkspaces(account.id);
    let sessions = 0;
    const media: string[] = [];
    for (const w of workspaces) {
      const held = await cardSessions.workspaceHoldings(w.id);
      sessions += held.sessions;
      media.push(...held.media);
    }
    const held = await requests.holdings({ accountId: account.id });
    media.push(...held.media);
    // the collections' record thumbnails, which the erasure removes with each collection (migration 047)
    for (const id of ids) media.push(...(await collections.thumbnailKeys(id)));
    const files = await filesHere(this.deps.media, media);
    const tokens = (await accountStore.listTokens(account.id)).length;
    return { deleted: accountId, collections: ids.length, sessions, requests: held.requests, files, files_not_found: media.length - files, workspaces: workspaces.length, tokens, collection_ids: ids };
  }

  /**
   * What {@link eraseWorkspace} would take (`loupe workspace delete --dry-run`): refused as it is (an unknown workspace,
   * the account's default), else its answer's counts and the credits its requests not yet done would give back.
   */
  async planWorkspace(workspaceId: string): Promise<WorkspaceErasurePlan> {
    const { cardSessions, requests } = this.deps;
    const found = await this.erasableWorkspace(workspaceId);
    const sessions = await cardSessions.workspaceHoldings(found.id);
    const held = await requests.holdings({ workspaceId: found.id });
    const media = [...sessions.media, ...held.media];
    const files = await filesHere(this.deps.media, media);
    return { deleted: found.id, account: found.accountId, sessions: sessions.sessions, requests: held.requests, files, files_not_found: media.length - files, refunded: held.refunded };
  }

  /** The workspace a `workspace delete` may erase: not an unknown one, nor an account's default. */
  private async erasableWorkspace(workspaceId: string): Promise<{ id: string; accountId: string }> {
    const found = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(workspaceId) ? await this.deps.accountStore.getWorkspace(workspaceId.toLowerCase()) : undefined;
    if (!found) throw new ServiceError(404, 'workspace_not_found', `Workspace ${workspaceId} not found.`);
    if (found.isDefault) throw new ServiceError(409, 'default_workspace', `Workspace ${found.id} is account ${found.accountId}'s default: it goes only with the account (loupe account delete).`);
    return found;
  }

  /**
   * One workspace erased (`loupe workspace delete`: a consignment customer's, a closed shop's), with its card sessions
   * and asynchronous requests and every file they name; the account and its other workspaces stay. The account's
   * default workspace goes only with the account: calls naming no workspace use it.
   */
  async eraseWorkspace(workspaceId: string): Promise<ErasedWorkspace> {
    const { accountStore, cardSessions, requests } = this.deps;
    const found = await this.erasableWorkspace(workspaceId);
    const done: ErasedWorkspace = { deleted: found.id, account: found.accountId, sessions: 0, requests: 0, files: 0, files_not_found: 0 };
    // calls under way (the account's tokens stay valid) may still add a row: looked for again, a few times
    for (let round = 0; round < 5; round++) {
      const erased = await cardSessions.eraseWorkspace(found.id);
      done.sessions += erased.sessions;
      done.files += erased.files;
      done.files_not_found += erased.filesNotFound;
      if (erased.filesLeft) done.files_left = (done.files_left ?? 0) + erased.filesLeft;
      await this.removeRequests(await requests.deleteForWorkspace(found.id), done);
      if (await accountStore.deleteWorkspaceIfEmpty(found.id)) {
        await flushErased(this.deps.store);
        return done;
      }
      await new Promise((r) => setTimeout(r, 200 * (round + 1)));
    }
    throw new ServiceError(409, 'workspace_busy', `Workspace ${found.id} kept receiving data while it was erased: stop the clients that write to it (or revoke their tokens) and run the command again.`);
  }

  /** The files of deleted requests removed, counted into `done`. */
  private async removeRequests(gone: { deleted: number; media: string[] }, done: { requests: number; files: number; files_not_found: number; files_left?: number }): Promise<void> {
    const { removed, failed } = await this.deps.media.remove(gone.media);
    await this.deps.mediaDeletions.removed(removed);
    done.requests += gone.deleted;
    done.files += removed.length;
    done.files_not_found += gone.media.length - removed.length - failed.length;
    if (failed.length) done.files_left = (done.files_left ?? 0) + failed.length;
  }
}
