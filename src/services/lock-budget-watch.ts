import { lockBudgetWarning, suggestedMaxLocks, type LockBudget } from '../store/pg-lock-budget.ts';
import type { QueueLog } from '../queue/queue-workers.ts';

/**
 * Whether this process's pool may fill PostgreSQL's shared lock table (store/pg-lock-budget.ts), told to the log once a
 * process: at the start, or at the collection create that first passes the mark (a shop making its 500th collection
 * hears of it then, not at the next restart). The check is one catalog query; it never fails what asked for it.
 */
export class LockBudgetWatch {
  private warned = false;

  constructor(
    /** store/pg-lock-budget.ts `readLockBudget` of the server's store (undefined on SQLite), or a test's figures. */
    private readonly read: (coming: number) => Promise<LockBudget | undefined>,
    private readonly log?: QueueLog,
  ) {}

  /** `coming`: collections made whose index their first insert will make. */
  async check(coming = 0): Promise<LockBudget | undefined> {
    let budget: LockBudget | undefined;
    try {
      budget = await this.read(coming);
    } catch (err) {
      this.log?.('warn', 'could not read the figures of PostgreSQL\'s lock table (collections\' indexes, max_locks_per_transaction)', { err: String(err) });
      return undefined;
    }
    const warning = budget && lockBudgetWarning(budget);
    if (warning && !this.warned) {
      this.warned = true;
      this.log?.('warn', warning, { ...budget, suggestedMaxLocksPerTransaction: suggestedMaxLocks(budget!) });
    }
    return budget;
  }
}
