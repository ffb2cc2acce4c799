import { describe, expect, it } from 'vitest';
import { databaseUnavailable, storageFull } from './errors.ts';

describe('a database away is a 503, not a 500', () => {
  it('knows PostgreSQL shutdown and connection errors and the driver\'s own', () => {
    for (const err of [{ code: '57P01', message: 'terminating connection due to administrator command' }, { code: '08006' }, { code: 'ECONNREFUSED', syscall: 'connect', message: 'connect ECONNREFUSED 127.0.0.1:5432' }, { message: 'Connection terminated unexpectedly' }, { message: 'timeout exceeded when trying to connect' }]) {
      expect(databaseUnavailable(err), JSON.stringify(err)).toBe(true);
    }
  });

  it('leaves every other error alone (a data exception, a bug, a unique violation)', () => {
    for (const err of [{ code: '22P02' }, { code: '23505' }, { code: '08P01' }, { code: 'ECONNRESET', syscall: 'read' }, { message: 'Cannot read properties of undefined' }, {}]) expect(databaseUnavailable(err)).toBe(false);
  });
});

describe('a full disk is a 503 storage_full', () => {
  it('knows the file system, SQLite and PostgreSQL saying so, and nothing else', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']) expect(storageFull({ code })).toBe(true);
    for (const err of [{ code: 'EACCES' }, { code: '53200' }, { code: 'SQLITE_BUSY' }, {}]) expect(storageFull(err)).toBe(false);
  });
});
