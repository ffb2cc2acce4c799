import { describe, expect, it } from 'vitest';
import net from 'node:net';
import Fastify from 'fastify';
import { databaseDamaged, databaseOverloaded, databaseUnavailable, registerClosingAnswer, registerErrorHandling, storageFull, storageUnwritable } from './errors.ts';

describe('a database away is a 503, not a 500', () => {
  it('knows PostgreSQL shutdown and connection errors and the driver\'s own', () => {
    for (const err of [{ code: '57P01', message: 'terminating connection due to administrator command' }, { code: '08006' }, { code: 'ECONNREFUSED', syscall: 'connect', message: 'connect ECONNREFUSED 127.0.0.1:5432' }, { message: 'Connection terminated unexpectedly' }, { message: 'timeout exceeded when trying to connect' }, { code: 'SQLITE_BUSY', message: 'database is locked' }, { code: 'SQLITE_BUSY_SNAPSHOT' }, { code: '53300', message: 'sorry, too many clients already' }, { code: '53100', message: 'could not extend file: No space left on device' }, { code: '55000', message: 'database "loupe" is not currently accepting connections' }, { code: '57014', message: 'canceling statement due to statement timeout' }, { code: '25P03', message: 'terminating connection due to idle-in-transaction timeout' }, { code: '57P05', message: 'terminating connection due to idle-session timeout' }]) {
      expect(databaseUnavailable(err), JSON.stringify(err)).toBe(true);
    }
  });

  it('leaves every other error alone (a data exception, a bug, a unique violation)', () => {
    for (const err of [{ code: '22P02' }, { code: '23505' }, { code: '08P01' }, { code: '55000', message: 'cannot refresh materialized view concurrently' }, { code: '53400', message: 'temporary file size exceeds temp_file_limit (8kB)' }, { code: '53200', message: 'out of shared memory' }, { code: 'ECONNRESET', syscall: 'read' }, { message: 'Cannot read properties of undefined' }, {}]) expect(databaseUnavailable(err)).toBe(false);
  });
});

describe('PostgreSQL out of shared memory (its lock table full) is a 503 database_overloaded, the operator told once (h369)', () => {
  it('knows 53200 and nothing else of class 53', () => {
    expect(databaseOverloaded({ code: '53200' })).toBe(true);
    for (const err of [{ code: '53300' }, { code: '53400' }, { code: '53100' }, { code: 'ENOMEM' }, {}]) expect(databaseOverloaded(err), JSON.stringify(err)).toBe(false);
  });

  it('answers 503 with Retry-After and no internals, and logs the hint to raise max_locks_per_transaction once', async () => {
    const lines: { level: number; msg: string; hint?: string; operator?: string }[] = [];
    const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => lines.push(JSON.parse(line)) } } });
    registerErrorHandling(app);
    app.post('/find', async () => {
      throw Object.assign(new Error('out of shared memory'), { code: '53200', severity: 'ERROR', hint: 'You might need to increase max_locks_per_transaction.' });
    });
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ method: 'POST', url: '/find' });
      expect([res.statusCode, res.json().code, res.headers['retry-after']]).toEqual([503, 'database_overloaded', '5']);
      expect(res.json().detail).toBe('The database is overloaded just now; nothing of this request was done. Retry shortly.');
      expect(res.body).not.toMatch(/shared memory|max_locks/);
    }
    const told = lines.filter((l) => l.msg.startsWith('database overloaded'));
    expect(told.map((l) => [l.level, l.msg])).toEqual([
      [50, 'database overloaded: its shared lock table is full'],
      [40, 'database overloaded'],
      [40, 'database overloaded'],
    ]);
    expect(told[0]!.hint).toBe('You might need to increase max_locks_per_transaction.');
    expect(told[0]!.operator).toMatch(/Raise max_locks_per_transaction .*docs\/operations.md "Many collections on PostgreSQL"/);
    await app.close();
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
    for (const err of [{ code: 'EACCES', path: '/data/media/6d/x.jpg.1.tmp' }, { code: 'EROFS', path: '/data/media' }, { code: 'EPERM', path: '/data/x' }, { code: 'SQLITE_READONLY' }, { code: 'SQLITE_READONLY_DBMOVED' }, { code: 'SQLITE_CANTOPEN' }, { code: 'SQLITE_IOERR_WRITE' }, { code: 'SQLITE_IOERR' }, { code: '25006' }]) {
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

describe('a damaged database file is a 503 database_damaged, and said once to whoever watches readiness', () => {
  it('knows SQLite saying its file is damaged or no database, and nothing else', () => {
    for (const code of ['SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_CORRUPT_VTAB', 'SQLITE_NOTADB']) expect(databaseDamaged({ code }), code).toBe(true);
    for (const err of [{ code: 'SQLITE_BUSY' }, { code: 'SQLITE_IOERR' }, { code: 'XX001' }, {}]) expect(databaseDamaged(err), JSON.stringify(err)).toBe(false);
  });

  it('answers 503 without internals (every call was a 500 while /ready said 200, h190) and tells the hook', async () => {
    const app = Fastify({ logger: false });
    let told = 0;
    registerErrorHandling(app, { onDamaged: () => told++ });
    app.get('/list', async () => {
      throw Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    });
    const res = await app.inject({ method: 'GET', url: '/list' });
    expect([res.statusCode, res.json().code]).toEqual([503, 'database_damaged']);
    expect(res.json().detail).toMatch(/restore a backup/);
    expect(res.body).not.toContain('malformed');
    expect(told).toBe(1);
    await app.close();
  });
});

describe('a request that arrives while the server stops', () => {
  it('is answered 503 in the house shape, not Fastify\'s own', async () => {
    const app = Fastify({ logger: false, return503OnClosing: false });
    registerErrorHandling(app);
    registerClosingAnswer(app);
    app.get('/slow', async () => {
      await new Promise((r) => setTimeout(r, 400));
      return { ok: true };
    });
    app.get('/next', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += String(d)));
    const ended = new Promise((r) => socket.on('close', r));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const closing = app.close();
    await new Promise((r) => setTimeout(r, 50));
    // the same connection, still open for the first answer: a client's next request
    socket.write('GET /next HTTP/1.1\r\nHost: x\r\n\r\n');
    await ended;
    await closing;
    expect(answer).toMatch(/^HTTP\/1.1 200/);
    expect(answer).toMatch(/HTTP\/1.1 503[\s\S]*"code":"shutting_down"/);
    expect(answer).not.toMatch(/"statusCode":503/);
  });
});
