import { PostgresDialect, PostgresDriver, type DatabaseConnection, type Driver, type PostgresDialectConfig } from 'kysely';

/** A socket error of a connection cut while in use (the database server ended it, or the network dropped it). */
export function connectionCut(err: unknown): boolean {
  const e = err as { code?: unknown; syscall?: unknown } | null;
  return !!e && (e.syscall === 'read' || e.syscall === 'write') && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
}

/**
 * A ROLLBACK on a connection already cut fails on its dead socket, and Kysely then throws that `read ECONNRESET` in place
 * of the statement's own error (a connection terminated: 503 `database_unavailable`), so the request answered 500
 * `internal_error` (h216). PostgreSQL rolls back a transaction whose connection ends, so there is nothing to undo.
 */
class CutSafeDriver extends PostgresDriver {
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (err) {
      if (!connectionCut(err)) throw err;
    }
  }
}

export class LoupePostgresDialect extends PostgresDialect {
  constructor(private readonly config: PostgresDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return new CutSafeDriver(this.config);
  }
}
