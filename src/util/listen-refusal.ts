/**
 * Why the server cannot listen on `host`:`port`, as its one start line says it: naming the setting to change. The
 * socket's own words named neither (a mistyped HOST said `getaddrinfo ENOTFOUND localhst`, an address of another
 * machine `listen EADDRNOTAVAIL: address not available 10.9.9.9:8080`, h330).
 */
export function listenRefusal(err: NodeJS.ErrnoException, port: number, host: string): string {
  switch (err.code) {
    case 'EADDRINUSE':
      return `port ${port} is in use on ${host} (another server, or one still stopping): nothing was started`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is not an address of this machine (EADDRNOTAVAIL): set HOST to one of its own addresses, 127.0.0.1 for this machine alone or 0.0.0.0 for every interface; nothing was started`;
    // (EAI_AGAIN: the name server did not answer, or none is configured)
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} is no address and no name this machine can resolve (${err.code}): set HOST to an address, 127.0.0.1 for this machine alone or 0.0.0.0 for every interface; nothing was started`;
    case 'EACCES':
      return `port ${port} may not be listened on by this user (EACCES: ports under 1024 need root or CAP_NET_BIND_SERVICE): set PORT to 1024 or more and put a proxy in front; nothing was started`;
    default:
      return err.message;
  }
}
