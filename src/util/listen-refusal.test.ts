import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenRefusal } from './listen-refusal.ts';

/** The error a real listen on `host` meets (none: undefined). */
function listenError(host: string, port = 0): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ port, host }, () => server.close(() => resolve(undefined)));
  });
}

describe('listenRefusal', () => {
  it('names HOST where the socket named only its own error (h330)', async () => {
    // a documentation address (TEST-NET-2, RFC 5737): no machine's own
    const elsewhere = await listenError('198.51.100.7');
    expect(elsewhere?.code).toBe('EADDRNOTAVAIL');
    expect(listenRefusal(elsewhere!, 8080, '198.51.100.7')).toBe('HOST 198.51.100.7 is not an address of this machine (EADDRNOTAVAIL): set HOST to one of its own addresses, 127.0.0.1 for this machine alone or 0.0.0.0 for every interface; nothing was started');
    // a name no resolver knows (RFC 6761's .invalid): ENOTFOUND, or EAI_AGAIN where no name server answers
    const typo = await listenError('loupe-host.invalid');
    expect(['ENOTFOUND', 'EAI_AGAIN']).toContain(typo?.code);
    expect(listenRefusal(typo!, 8080, 'loupe-host.invalid')).toMatch(/^HOST loupe-host\.invalid is no address and no name this machine can resolve \((ENOTFOUND|EAI_AGAIN)\): set HOST/);
  });

  it('names PORT for a port in use and one this user may not take', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const inUse = await listenError('127.0.0.1', port);
      expect(listenRefusal(inUse!, port, '127.0.0.1')).toBe(`port ${port} is in use on 127.0.0.1 (another server, or one still stopping): nothing was started`);
    } finally {
      await new Promise((r) => taken.close(r));
    }
    // (as root a port under 1024 is free to take: the error is made here, as the kernel gives it to others)
    const denied = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), { code: 'EACCES' });
    expect(listenRefusal(denied, 80, '0.0.0.0')).toMatch(/^port 80 may not be listened on by this user \(EACCES: ports under 1024 need root or CAP_NET_BIND_SERVICE\): set PORT to 1024 or more/);
    // another error keeps its own words
    const other = Object.assign(new Error('listen EINVAL: invalid argument'), { code: 'EINVAL' });
    expect(listenRefusal(other, 8080, '0.0.0.0')).toBe('listen EINVAL: invalid argument');
  });
});
