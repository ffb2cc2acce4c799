import { describe, expect, it } from 'vitest';
import { AddressPolicy } from './address-policy.ts';

describe('AddressPolicy', () => {
  const policy = new AddressPolicy();
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['100.100.100.200', 'carrier-grade'],
    ['255.255.255.255', 'broadcast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::7f00:1', 'loopback'],
    ['::a00:1', 'private'],
    ['64:ff9b::a00:1', 'not public'],
    ['2002:a00:1::', 'not public'],
  ])('refuses %s (%s)', (address, why) => {
    expect(policy.refusal(address)).toContain(why);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows public %s', (address) => {
    expect(policy.refusal(address)).toBeUndefined();
  });

  it('an allow-list of CIDRs, IPs and host names overrides the refusal', () => {
    const p = new AddressPolicy(['127.0.0.0/8', '10.9.9.9', 'images.internal', 'fd00::/8']);
    expect(p.refusal('127.0.0.1')).toBeUndefined();
    expect(p.refusal('::ffff:127.0.0.1')).toBeUndefined();
    expect(p.refusal('10.9.9.9')).toBeUndefined();
    expect(p.refusal('10.9.9.8')).toContain('private');
    expect(p.refusal('192.168.0.5', 'images.internal')).toBeUndefined();
    expect(p.refusal('192.168.0.5', 'other.internal')).toContain('private');
    expect(p.refusal('fd12::1')).toBeUndefined();
    const mapped = new AddressPolicy(['::ffff:10.0.0.0/104']);
    expect(mapped.refusal('10.1.2.3')).toBeUndefined();
    expect(mapped.refusal('::ffff:10.1.2.3')).toBeUndefined();
  });

  it('reads LOUPE_URL_ALLOWLIST', () => {
    expect(AddressPolicy.fromEnv(' 127.0.0.1 , localhost ').refusal('127.0.0.1')).toBeUndefined();
    expect(AddressPolicy.fromEnv(undefined).refusal('127.0.0.1')).toBeDefined();
  });
});
