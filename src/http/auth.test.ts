import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logAsPrincipal } from './auth.ts';

describe('request logs', () => {
  it('name the account and token of an authenticated request on every later line, the reply’s too; never the token itself', () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(JSON.parse(chunk.toString())), done()) });
    const log = Fastify({ logger: { level: 'info', stream } }).log.child({ reqId: 'r1' });
    const principal = { tokenId: 'tok-1', account: { id: 'acc-1' }, defaultWorkspaceId: 'w' } as unknown as NonNullable<FastifyRequest['principal']>;
    const request = { log } as unknown as FastifyRequest;
    const reply = { log } as unknown as FastifyReply;
    logAsPrincipal(request, reply, principal);
    request.log.info('handled');
    reply.log.info('request completed');
    expect(lines).toEqual([expect.objectContaining({ reqId: 'r1', account: 'acc-1', tokenId: 'tok-1', msg: 'handled' }), expect.objectContaining({ account: 'acc-1', msg: 'request completed' })]);
  });
});
