import type { CompiledQuery} from 'kysely';
import { type DatabaseConnection, type Driver } from 'kysely';
import { describe, expect, it } from 'vitest';
import { LoupePostgresDialect } from './postgres-dialect.ts';

const connection = (fail: Error): DatabaseConnection => ({
  executeQuery: () => Promise.reject(fail),
  // eslint-disable-next-line require-yield
  streamQuery: async function* () {
    throw fail;
  },
});
const cut = (syscall: string, code: string) => Object.assign(new Error(`${syscall} ${code}`), { syscall, code });

describe('PostgreSQL rollback on a cut connection (h216)', () => {
  const driver = new LoupePostgresDialect({ pool: {} as never }).createDriver() as Driver;

  it("lets the statement's own error stand: a ROLLBACK failing on the dead socket is no error of its own", async () => {
    await expect(driver.rollbackTransaction(connection(cut('read', 'ECONNRESET')))).resolves.toBeUndefined();
    await expect(driver.rollbackTransaction(connection(cut('write', 'EPIPE')))).resolves.toBeUndefined();
  });

  it('passes any other rollback failure on', async () => {
    await expect(driver.rollbackTransaction(connection(new Error('syntax error')))).rejects.toThrow('syntax error');
    await expect(driver.rollbackTransaction(connection(cut('connect', 'ECONNREFUSED')))).rejects.toThrow('ECONNREFUSED');
  });

  it('still sends a ROLLBACK', async () => {
    const sent: string[] = [];
    const ok: DatabaseConnection = { executeQuery: async (q: CompiledQuery) => (sent.push(q.sql), { rows: [] }), streamQuery: connection(new Error()).streamQuery };
    await driver.rollbackTransaction(ok);
    expect(sent).toEqual(['rollback']);
  });
});
