import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from './webhook-signature.ts';

describe('webhook signatures', () => {
  const body = JSON.stringify({ status: 'DONE', id: 'x' });
  const at = 1_790_000_000_000;

  it('verify what was signed, with the same secret and body', () => {
    const header = signWebhook('whsec_a', body, at);
    expect(header).toMatch(/^t=1790000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook('whsec_a', body, header, { now: at + 1000 })).toBe(true);
  });

  it('refuse another secret, a changed body, a stale time and garbage', () => {
    const header = signWebhook('whsec_a', body, at);
    expect(verifyWebhook('whsec_b', body, header, { now: at })).toBe(false);
    expect(verifyWebhook('whsec_a', `${body} `, header, { now: at })).toBe(false);
    expect(verifyWebhook('whsec_a', body, header, { now: at + 301_000 })).toBe(false);
    expect(verifyWebhook('whsec_a', body, 'v1=abc', { now: at })).toBe(false);
    const replayed = header.replace('t=1790000000', 't=1790000100');
    expect(verifyWebhook('whsec_a', body, replayed, { now: at + 100_000 })).toBe(false);
  });
});
