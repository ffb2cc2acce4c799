import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header a receiver verifies; the scheme is documented in docs/webhooks.md. */
export const signatureHeader = 'loupe-signature';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the timestamp is signed with the
 * body so a captured delivery cannot be replayed later with a fresh time.
 */
export function signWebhook(secret: string, body: string, at = Date.now()): string {
  const t = Math.floor(at / 1000);
  return `t=${t},v1=${hmac(secret, `${t}.${body}`)}`;
}

/** What a receiver does: recompute, compare in constant time, refuse stale timestamps. */
export function verifyWebhook(secret: string, body: string, header: string, options: { toleranceSeconds?: number; now?: number } = {}): boolean {
  const parts = new Map(header.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isInteger(t) || !given || !/^[0-9a-f]{64}$/.test(given)) return false;
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs((options.now ?? Date.now()) / 1000 - t) > tolerance) return false;
  return timingSafeEqual(Buffer.from(hmac(secret, `${t}.${body}`), 'hex'), Buffer.from(given, 'hex'));
}

function hmac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}
