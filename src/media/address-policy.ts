import ipaddr from 'ipaddr.js';

/**
 * Which addresses a server-side fetch may connect to. Only global unicast: loopback, private,
 * link-local (which holds cloud metadata at 169.254.169.254), unique-local, multicast, carrier
 * NAT (Alibaba's metadata at 100.100.100.200), reserved and unspecified ranges are refused,
 * IPv4-mapped IPv6 forms are judged as the IPv4 address they carry. An allow-list of hosts, IPs
 * and CIDRs (LOUPE_URL_ALLOWLIST) overrides the refusal.
 */
export class AddressPolicy {
  private readonly hosts = new Set<string>();
  private readonly ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];

  constructor(allowList: string[] = []) {
    for (const raw of allowList.map((s) => s.trim().toLowerCase()).filter(Boolean)) {
      if (raw.includes('/')) {
        this.ranges.push(ipaddr.parseCIDR(raw));
      } else if (ipaddr.isValid(raw)) {
        const a = normalise(ipaddr.parse(raw));
        this.ranges.push([a, a.kind() === 'ipv4' ? 32 : 128]);
      } else {
        this.hosts.add(raw.replace(/\.$/, ''));
      }
    }
  }

  static fromEnv(value: string | undefined): AddressPolicy {
    return new AddressPolicy((value ?? '').split(','));
  }

  hostAllowed(host: string): boolean {
    return this.hosts.has(host.toLowerCase().replace(/\.$/, ''));
  }

  /** Undefined when the address may be used, else the reason it may not. */
  refusal(address: string, host?: string): string | undefined {
    if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
    const ip = normalise(ipaddr.parse(address));
    if (host && this.hostAllowed(host)) return undefined;
    for (const [range, bits] of this.ranges) {
      if (range.kind() === ip.kind() && ip.match(range, bits)) return undefined;
    }
    const kind = ip.range();
    return kind === 'unicast' ? undefined : `address ${ip.toString()} is ${describe(kind)}`;
  }
}

/** ::ffff:127.0.0.1 is 127.0.0.1. */
function normalise(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
}

function describe(range: string): string {
  const names: Record<string, string> = {
    loopback: 'a loopback address',
    private: 'a private address',
    linkLocal: 'link-local (cloud metadata lives there)',
    uniqueLocal: 'a unique-local address',
    multicast: 'a multicast address',
    unspecified: 'unspecified',
    broadcast: 'a broadcast address',
    carrierGradeNat: 'carrier-grade NAT space',
    reserved: 'reserved',
  };
  return `${names[range] ?? `not public (${range})`} and may not be fetched`;
}
