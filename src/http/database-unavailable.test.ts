import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { databaseUnavailable, registerErrorHandling, storageFull, storageUnwritable } from './errors.ts';

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

describe('storage the server may not write is a 503 storage_unavailable', () => {
  it('knows a file it may not write and the database file failing, and nothing else', () => {
    for (const err of [{ code: 'EACCES', path: '/data/media/6d/x.jpg.1.tmp' }, { code: 'EROFS', path: '/data/media' }, { code: 'EPERM', path: '/data/x' }, { code: 'SQLITE_READONLY' }, { code: 'SQLITE_IOERR_WRITE' }, { code: 'SQLITE_IOERR' }]) {
      expect(storageUnwritable(err), JSON.stringify(err)).toBe(true);
    }
    for (const err of [{ code: 'EACCES' }, { code: 'ENOENT', path: '/x' }, { code: 'SQLITE_BUSY' }, { code: 'ECONNRESET' }, {}]) expect(storageUnwritable(err), JSON.stringify(err)).toBe(false);
  });

  it('answers a media folder that refuses a write with 503 and Retry-After, not a 500 (a permission change behind the server)', async () => {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    app.post('/upload', async () => {
      throw Object.assign(new Error("EACCES: permission denied, open '/data/media/6d/x.jpg.4228.tmp'"), { code: 'EACCES', syscall: 'open', path: '/data/media/6d/x.jpg.4228.tmp' });
    });
    const res = await app.inject({ method: 'POST', url: '/upload' });
    expect([res.statusCode, res.json().code, res.headers['retry-after']]).toEqual([503, 'storage_unavailable', '60']);
    expect(res.body).not.toContain('/data/media');
    await app.close();
  });
});
