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
        const [range, bits] = ipaddr.parseCIDR(raw);
        // Addresses are judged in IPv4 form when they carry one, so allow-list entries are too.
        const v4 = range.kind() === 'ipv6' && bits >= 96 ? embeddedIPv4(range as ipaddr.IPv6) : undefined;
        this.ranges.push(v4 ? [v4, bits - 96] : [range, bits]);
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

/**
 * The IPv4 address carried by an IPv4-mapped (::ffff:a.b.c.d) or the deprecated IPv4-compatible
 * (::a.b.c.d) form, which ipaddr.js would otherwise call plain unicast. :: and ::1 stay IPv6.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  const p = ip.parts;
  const compatible = p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1);
  return compatible ? ipaddr.IPv4.parse(`${p[6]! >> 8}.${p[6]! & 255}.${p[7]! >> 8}.${p[7]! & 255}`) : undefined;
}

/** ::ffff:127.0.0.1 and ::127.0.0.1 are 127.0.0.1. */
function normalise(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return (ip.kind() === 'ipv6' && embeddedIPv4(ip as ipaddr.IPv6)) || ip;
}

/**
 * A refusal of an address a host name resolved to, said of the name without the address:
 * `localhost resolves to a loopback address…`. The address would tell any token holder the
 * operator's internal names' addresses (`db.internal`, a cluster's service names).
 */
export function resolvedRefusal(host: string, refusal: string): string {
  return `${host} resolves to ${refusal.replace(/^address \S+ is /, '')}`;
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
  // the setting is named so that a self-hosted shop whose webhook receiver or image host is on its own network knows the way
  return `${names[range] ?? `not public (${range})`} and may not be fetched (the server's operator can allow hosts with LOUPE_URL_ALLOWLIST)`;
}
