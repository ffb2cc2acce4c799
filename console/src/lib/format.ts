const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

export const money = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? usd.format(v) : '—');
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
export const num = (v: unknown, digits = 2) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits).replace(/\.?0+$/, '') : typeof v === 'string' ? v : '—');

/** Whether a signed media link (`…?expires=<unix seconds>&sig=…`) has run out, or will within a minute. */
export function linkExpired(url: string, now = Date.now()): boolean {
  const expires = Number(/[?&]expires=(\d+)/.exec(url)?.[1]);
  return Number.isFinite(expires) && expires * 1000 < now + 60_000;
}
