const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

export const money = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? usd.format(v) : '—');

/** A price in its own currency (price statistics may be in EUR: they showed a dollar sign, h157); an unknown code after the number. */
export function moneyIn(v: number | null | undefined, currency = 'USD'): string {
  if (currency === 'USD') return money(v);
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(v);
  } catch {
    return `${v.toFixed(2)} ${currency}`;
  }
}
/**
 * A session's total as the list and its page show it. The API's `total_price` is 0 both for a session with no card
 * priced and for one with no card at all, and the list reads no rows: "$0.00" beside a box of 40 unpriced cards read as
 * worthless (h342). A total of 0 over cards that are there is "not priced" (its title says what that covers: cards
 * priced at exactly $0.00 add up the same); an empty session has no total.
 */
export function sessionTotal(cards: number, total: number | null | undefined): { text: string; title?: string } {
  if (cards === 0) return { text: '—', title: 'No cards yet' };
  if (total === 0) return { text: 'not priced', title: 'No card in this session has a price above $0.00' };
  return { text: money(total) };
}
/**
 * Why a session's game reads "not set": the API's `game` is empty (spec 1: "empty for a mix"), and the list reads no
 * rows, so it cannot say whether the cards are of several games. "Mixed" beside an empty session, or one of 40 Pokémon
 * cards, said what nobody knew (h342).
 */
export const sessionGameUnset = (cards: number) =>
  cards === 0 ? 'No game was chosen for this session, and it has no cards yet' : 'No game was chosen for this session: its cards may be of any game';
/** What a session's status badge means to whoever is at the counter. */
export const statusMeaning: Record<string, string> = {
  live: 'Live: the scanner app can still add cards',
  closed: 'Closed: no more cards can be added until it is reopened',
};
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
export const num = (v: unknown, digits = 2) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits).replace(/\.?0+$/, '') : typeof v === 'string' ? v : '—');

/** When a signed media link (`…?expires=<unix seconds>&sig=…`) stops working, in ms since the epoch; undefined unsigned. */
const expiresOf = (url: string | null | undefined): number | undefined => {
  const expires = Number(/[?&]expires=(\d+)/.exec(url ?? '')?.[1]);
  return Number.isFinite(expires) && expires > 0 ? expires * 1000 : undefined;
};

/** Whether a signed media link has run out, or will within a minute. */
export function linkExpired(url: string, now = Date.now()): boolean {
  const expires = expiresOf(url);
  return expires !== undefined && expires < now + 60_000;
}

/**
 * When the first of these signed media links stops working (ms since the epoch), or undefined when none is signed.
 * The server signs session images for `LOUPE_MEDIA_LINK_TTL_S` (an hour unless its operator changed it), from the read
 * that gave the link: the links themselves say when, whatever the server's setting.
 */
export function linksExpireAt(urls: readonly (string | null | undefined)[]): number | undefined {
  let first: number | undefined;
  for (const url of urls) {
    const expires = expiresOf(url);
    if (expires !== undefined && (first === undefined || expires < first)) first = expires;
  }
  return first;
}

/**
 * A price as typed on any phone keyboard, in the digits and decimal mark the API takes: Arabic-Indic,
 * Persian/Urdu, Devanagari, Bengali and full-width digits as 0–9, the Arabic decimal separator (٫) and a
 * decimal comma (`12,50`) as a point, thousands separators (٬, a comma before three digits) dropped
 * (h146: `١٢٫٥٠` was refused, the number an Arabic decimal keypad types).
 */
export function priceInput(text: string): string {
  let t = text.trim().replace(/[\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\u09e6-\u09ef\uff10-\uff19]/g, (d) => {
    const c = d.charCodeAt(0);
    const zero = c >= 0xff10 ? 0xff10 : c >= 0x09e6 ? 0x09e6 : c >= 0x0966 ? 0x0966 : c >= 0x06f0 ? 0x06f0 : 0x0660;
    return String(c - zero);
  });
  // a space inside is no separator here: `12 50` was 1250, a silent hundredfold (h147)
  t = t.replace(/[\u066b\uff0e]/g, '.').replace(/\uff0c/g, ',').replace(/\u066c/g, '');
  // one comma with one or two digits after it and no point: a decimal comma; else commas group thousands
  t = /^\d+,\d{1,2}$/.test(t) ? t.replace(',', '.') : /^\d{1,3}(,\d{3})+(\.\d*)?$/.test(t) ? t.replace(/,/g, '') : t;
  return t;
}
