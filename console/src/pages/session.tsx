import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api.ts';
import type { Shell } from '../app.tsx';
import { CardGrid } from '../components/card-grid.tsx';
import { ErrorBox, Links, Stat } from '../components/common.tsx';
import { PriceChart } from '../components/price-chart.tsx';
import { csvFileName, sessionCsv } from '../lib/csv.ts';
import { linkExpired, linksExpireAt, money, num, priceInput, statusMeaning, when } from '../lib/format.ts';
import { filterRows } from '../lib/card-filter.ts';
import { leaveUnsaved, unsavedEdits as unsaved } from '../lib/unsaved.ts';
import { matchTextFields, type Correction, type Identification, type MatchTextField, type Page, type Session, type Summary } from '../types.ts';

/** The API's largest page: 5,000 cards are ten requests. */
const rowsPerPage = 500;
/** The newest rows a quiet poll of a live session reads again. */
const tailRows = 50;
/** While a stream runs, the session is asked every few seconds; a hidden tab asks nothing. */
const pollMs = 4000;
/** New cards of a live session are said to a screen reader at most this often (a scanner adds one every few seconds). */
const sayNewCardsMs = 10_000;

const editable = matchTextFields;
const limits: Record<MatchTextField, number> = { name: 255, full_name: 500, set_name: 255, set_code: 50, card_number: 50, series: 255, year: 20, subcategory: 100 };

/** The editor's fields as the row has them. */
const fieldsOf = (row: Identification): Record<string, string> => ({
  ...Object.fromEntries(editable.map((k) => [k, row[k] ?? ''])),
  price: row.price === null || row.price === undefined ? '' : String(row.price),
  note: row.note ?? '',
  sold: row.sold ? 'true' : '',
});

/** An alternative's name as shown: an empty `full_name` (a scanner app's) falls back to `name`, then to words. */
const altName = (alt: Record<string, unknown>): string => String(alt.full_name || alt.name || 'unnamed card');

/** US dollars as a person types them: digits with an optional decimal point (0x10 and 1e3 were read as 16 and 1000). */
const priceText = /^\d+(\.\d*)?$|^\.\d+$/;
const PRICE_ERROR = 'Price must be a number of US dollars such as 12 or 12.50 (or empty for none).';

/**
 * Keyed by the row's id where it is used, so another row is a fresh editor: its fields start
 * filled in the first render, and nothing typed before an effect runs is overwritten.
 */
/** Whether the page is as narrow as a phone's, where the card editor is a sheet over the grid (styles.css). */
function useNarrow(): boolean {
  const query = '(max-width: 760px)';
  const [narrow, setNarrow] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const on = () => setNarrow(list.matches);
    list.addEventListener('change', on);
    return () => list.removeEventListener('change', on);
  }, []);
  return narrow;
}


function Editor({ row, sessionId, onSaved, onClose, onImageError, modal = false }: { row: Identification; sessionId: string; onSaved: (row: Identification) => void; onClose: () => void; onImageError: (src: string) => void; modal?: boolean }) {
  const [values, setValues] = useState<Record<string, string>>(() => fieldsOf(row));
  // the row's version the form's fields were filled from: a save holds only while the row is still it, so a change
  // made meanwhile elsewhere (the phone, another window) to a field this save sends is not overwritten unseen
  const version = useRef(row.etag);
  // what the fields held when opened or last saved (a live refresh of the row is not the user's typing)
  const [base, setBase] = useState<Record<string, string>>(() => fieldsOf(row));
  useLayoutEffect(() => {
    unsaved.current = Object.keys(values).some((k) => (values[k] ?? '') !== (base[k] ?? ''));
  }, [values, base]);
  // what the fields hold now, for a save's answer arriving after more typing
  const typed = useRef(values);
  typed.current = values;
  useEffect(() => () => void (unsaved.current = false), []);
  const [error, setError] = useState<unknown>(null);
  // the price field's own error, tied to it for a screen reader (h166)
  const priceWrong = error === PRICE_ERROR;
  const [saving, setSaving] = useState(false);
  // said after a save, until the next change: nothing on screen said the correction was kept
  const [done, setDone] = useState(false);
  // a field typed into after a save: "Saved." no longer says what the form shows (h240)
  const edit = (next: typeof values) => {
    setDone(false);
    setValues(next);
  };
  const first = useRef<HTMLInputElement>(null);
  const drawer = useRef<HTMLDivElement>(null);
  // The drawer takes the keyboard, without scrolling the page away from the grid. Before the browser paints
  // (a layout effect): a focus moved a frame later took text already being typed into another field into the
  // card's name (CI, under load: the note typed at once went into "name").
  useLayoutEffect(() => {
    first.current?.focus({ preventScroll: true });
    // the drawer's own scroll brings the field into view (the page stays where it is): below a card's photo it sat
    // under the window's edge or the sticky Save, typed into unseen (h166)
    first.current?.scrollIntoView?.({ block: 'nearest' });
  }, []);

  const save = async (body: Correction) => {
    setSaving(true);
    setDone(false);
    const sent = typed.current;
    try {
      const patch = (etag: string | undefined) => call<Identification>('PATCH', `/cardstream/v2/identification/${row.id}/`, { body, headers: etag ? { 'if-match': etag } : {} });
      let saved: Identification;
      try {
        saved = await patch(version.current);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 412) throw err;
        // changed since the form was filled: where none of the fields this save sends changed (an image or grading
        // came, another field was corrected), it goes on top of the row as it is now; else the user decides
        const list = await call<Page<Identification>>('GET', `/cardstream/v2/identification/?session=${encodeURIComponent(sessionId)}&event_id=${encodeURIComponent(row.event_id)}&page_size=100`);
        const now = list.results.find((r) => r.id === row.id);
        if (!now) throw err;
        const held = fieldsOf(now);
        const clashes = Object.keys(body).filter((k) => (held[k] ?? '') !== (base[k] ?? ''));
        if (clashes.length) {
          onSaved(now);
          version.current = now.etag;
          // a field the user left alone shows what it holds now: kept as it was, it read as the user's change and the
          // save again sent it back, undoing the phone's other fields (h278)
          const mine = typed.current;
          const next = { ...mine };
          for (const k of Object.keys(held)) if ((mine[k] ?? '') === (base[k] ?? '')) next[k] = held[k] ?? '';
          setValues(next);
          setBase(held);
          throw new Error(`Not saved: this card was changed meanwhile (on the phone or in another window): ${clashes.map((k) => `${k.replace('_', ' ')} is now “${held[k] || 'empty'}”`).join(', ')}. Your text is still in the form: save again to put it in place of theirs.`);
        }
        saved = await patch(now.etag);
      }
      version.current = saved.etag;
      onSaved(saved);
      setDone(true);
      // the fields show what was saved: an alternative picked with "Use this" would otherwise stay
      // behind in the form, and the next save would send the old card back. A field typed into while the save
      // was on its way keeps its text, not saved yet (it was replaced by the saved value, lost).
      const fresh = fieldsOf(saved);
      const now = typed.current;
      const next = { ...fresh };
      for (const k of Object.keys(now)) if ((now[k] ?? '') !== (sent[k] ?? '')) next[k] = now[k] ?? '';
      setValues(next);
      setBase(fresh);
      setError(null);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
      // the button pressed was disabled while saving, which drops the focus out of the drawer (and Escape with it);
      // a field typed into while the save was on its way keeps the focus (its text went into the name)
      if (!drawer.current?.contains(document.activeElement)) first.current?.focus({ preventScroll: true });
    }
  };
  const submit = (e: Event) => {
    e.preventDefault();
    // only what the user changed in the form: a field the phone changed since the form was filled (a live refresh)
    // is not sent back with the form's old value, which then stood as the user's for good (h99)
    const body: Correction = {};
    const changed = (k: string) => (values[k] ?? '') !== (base[k] ?? '');
    for (const k of editable) if (changed(k)) body[k] = values[k] ?? '';
    const price = priceInput(values.price ?? '');
    if (price !== '' && !priceText.test(price)) return setError(PRICE_ERROR);
    if (changed('price')) body.price = price === '' ? null : Number(price);
    if (changed('note')) body.note = values.note ?? '';
    if (changed('sold')) body.sold = values.sold === 'true';
    if (!Object.keys(body).length) return setError('Nothing changed.');
    void save(body);
  };
  // The alternative as recognition gave it (the API takes it so: its set, links and price_stats);
  // a field it lacks is cleared, not left from the card it replaces (a series of another set stayed).
  const asCorrection = (card: Record<string, unknown>): Correction => {
    const body: Record<string, unknown> = { ...card };
    if (body.set !== undefined && body.set_name === undefined) {
      body.set_name = body.set;
      delete body.set;
    }
    for (const k of editable) body[k] = body[k] === null || body[k] === undefined ? null : String(body[k]).slice(0, limits[k]);
    return body as Correction;
  };
  const useAlternative = (alt: Record<string, unknown>) => {
    if (!confirm(`Replace “${row.full_name || row.name || 'this card'}” with “${altName(alt)}”? “Restore” in this panel brings the recognised card back.`)) return;
    void save(asCorrection(alt));
  };
  const restore = () => {
    if (row.original) void save({ ...asCorrection(row.original), price: typeof row.original.price === 'number' ? row.original.price : null });
  };
  return (
    // on a phone a sheet over the page, as a dialog is: said as one (h240: "complementary"); not aria-modal, as the page
    // above it stays in use (its menu, filter and live status, h248)
    <div ref={drawer} class="drawer" id="card-editor" aria-labelledby="editor-title" role={modal ? 'dialog' : 'complementary'} onKeyDown={(e) => (e.key === 'Escape' ? onClose() : e.key === 'Tab' && drawer.current ? keepTabInSheet(e, drawer.current) : undefined)}>
      <div class="drawer-head">
        <h2 id="editor-title" dir="auto">{row.name || 'Card'}</h2>
        <button class="link" onClick={onClose} aria-label="Hide the card">
          Hide
        </button>
      </div>
      {/* full size a tap away: on a phone the panel shows it 160 px high, too small to check a corner (h203) */}
      {row.image || row.thumbnail ? (
        <a href={row.image ?? row.thumbnail ?? ''} target="_blank" rel="noopener noreferrer" title="Open the photo full size">
          <img class="big" src={row.image ?? row.thumbnail ?? ''} alt={`Photo of ${row.name || 'an unnamed card'} (opens full size)`} onError={(e) => onImageError((e.currentTarget as HTMLImageElement).src)} />
        </a>
      ) : null}
      {/* the words a shop reads first; the scanner's event id and the match distance under "Details" for whoever needs
          them (the line read "event 1796… · distance 0.031 · high confidence") */}
      <p class="hint">
        {row.seen ? (
          <>
            Scanned <bdi>{when(row.seen)}</bdi> ·{' '}
          </>
        ) : null}
        {row.confidence ? `Recognised with ${row.confidence} confidence` : 'Confidence not known'}
        {row.grade !== null && row.grade !== undefined ? ` · grade ${num(row.grade, 1)} of 10${row.grading?.grades?.condition ? `, ${String(row.grading.grades.condition)}` : ''}` : ''}
      </p>
      <details class="hint">
        <summary>Details</summary>
        Event id <bdi>{row.event_id}</bdi> · match distance {num(row.distance, 3)} (how far the photo is from the card recognised: 0 is an exact match, the lower the surer)
      </details>
      <form onSubmit={submit} class="editor" aria-label="Correct this card">
        {editable.map((k, i) => (
          <label key={k}>
            {k.replace('_', ' ')}
            <input ref={i === 0 ? first : undefined} name={k} dir="auto" maxLength={limits[k]} value={values[k] ?? ''} onInput={(e) => edit({ ...values, [k]: (e.target as HTMLInputElement).value })} />
          </label>
        ))}
        <label>
          price (USD)
          <input name="price" inputMode="decimal" value={values.price ?? ''} aria-invalid={priceWrong ? true : undefined} aria-describedby={priceWrong ? 'editor-error' : undefined} onInput={(e) => edit({ ...values, price: (e.target as HTMLInputElement).value })} />
        </label>
        <label class="check">
          <input type="checkbox" name="sold" checked={values.sold === 'true'} onChange={(e) => edit({ ...values, sold: (e.target as HTMLInputElement).checked ? 'true' : '' })} /> sold
        </label>
        <label>
          note
          <textarea name="note" dir="auto" rows={2} maxLength={10_000} value={values.note ?? ''} onInput={(e) => edit({ ...values, note: (e.target as HTMLTextAreaElement).value })} />
        </label>
        <button type="submit" disabled={saving}>
          {saving ? 'Saving…' : 'Save correction'}
        </button>
        {done ? (
          <p class="hint" role="status">
            Saved.
          </p>
        ) : null}
        <ErrorBox error={error} id="editor-error" />
      </form>
      {row.corrected && row.original ? (
        <p class="hint">
          Recognised as {String(row.original.full_name ?? row.original.name ?? '?')}.{' '}
          <button class="link" onClick={restore} disabled={saving}>
            Restore
          </button>
        </p>
      ) : null}
      {row.alternatives?.length ? (
        <>
          <h3>Alternatives</h3>
          <ul class="alts">
            {row.alternatives.map((alt, i) => (
              <li key={i}>
                <span>
                  {altName(alt)} <span class="hint">{String(alt.set ?? alt.set_name ?? '')}</span>
                </span>
                {/* the name holds the words shown (WCAG 2.5.3: "Use Pikachu V" was not what a voice user saw), the card after them */}
                <button onClick={() => useAlternative(alt)} disabled={saving}>
                  Use this<span class="sr-only">: {altName(alt)}</span>
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {row.links && Object.keys(row.links).length ? (
        <>
          <h3>Links</h3>
          <Links links={row.links} />
        </>
      ) : null}
      {row.price_stats?.length ? (
        <>
          <h3>Prices</h3>
          <PriceChart stats={row.price_stats} />
        </>
      ) : null}
    </div>
  );
}

export function SessionPage({ id }: { shell: Shell; id: string }) {
  const [session, setSession] = useState<Session | null>(null);
  const [summary, setSummary] = useState<Summary | null>(null);
  const [rows, setRows] = useState<Identification[]>([]);
  const [loading, setLoading] = useState(true);
  // every card of the session read once: before that the page says "Loading n of m…" and draws the pages as they
  // come; after it a refresh replaces the rows at once when all are read (a live session said "Loading 6 of 7…"
  // then "7 of 7 cards" at every card scanned, and Export CSV went disabled, dropping the focus, h219)
  const [loadedOnce, setLoadedOnce] = useState(false);
  const loadedOnceRef = useRef(false);
  // said to a screen reader (a status region of its own): the count when first read, a filter's matches, new cards
  const [said, setSaid] = useState('');
  const newCards = useRef(0);
  const lastSaid = useRef(0);
  const [error, setError] = useState<unknown>(null);
  // what a close, reopen or delete met: its own, so the next refresh (every 4 s, which clears its own failure) does not
  // take it away before it is read (a 412's "read again" message vanished with the read it asked for)
  const [actionError, setActionError] = useState<unknown>(null);
  // deleted elsewhere (another tab, the scanner app, an erased workspace) while shown: said once, and no more polling
  // (h254: a live session's page asked for it every 4 s for as long as it stayed open, each answer a 404)
  const [gone, setGone] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  // Back to the card the editor was opened from, so the keyboard keeps its place in the grid: once the render that
  // closed it is on the page, as on a phone the grid is inert until then and refused the focus (h166: it fell to the
  // page's top). A card scrolled out of the drawn rows meanwhile: the grid itself.
  const returnTo = useRef<string | null>(null);
  useLayoutEffect(() => {
    if (selected !== null || returnTo.current === null) return;
    const eventId = returnTo.current;
    returnTo.current = null;
    const card = document.querySelector<HTMLElement>(`[data-event-id="${CSS.escape(eventId)}"]`);
    (card ?? document.querySelector<HTMLElement>('.grid-scroll'))?.focus();
  }, [selected]);
  const [filter, setFilter] = useState('');
  const [renaming, setRenaming] = useState(false);
  const cancelRename = () => {
    setRenaming(false);
    setRenameError(null);
    // back to the button that opened the form (the focus fell to the page's start)
    setTimeout(() => document.querySelector<HTMLElement>('[data-rename]')?.focus());
  };
  const [renameError, setRenameError] = useState<unknown>(null);
  const narrow = useNarrow();
  const nameField = useRef<HTMLInputElement>(null);
  // before the browser paints, as the editor's: typing at once after Rename goes into the name
  useLayoutEffect(() => {
    if (renaming) nameField.current?.focus();
  }, [renaming]);
  const rowsRef = useRef<Identification[]>([]);
  const lastSession = useRef<Session | null>(null);
  const busy = useRef(false);
  // Corrections saved here, numbered as they are saved: a read begun before one answers with the row as it was, and
  // put the old row back over the saved one for good (h254: a name corrected during a refresh went back, and into the CSV)
  const saves = useRef(0);
  const savedRows = useRef(new Map<string, { row: Identification; save: number }>());
  const withSaves = (read: Identification[], since: number) =>
    since === saves.current ? read : read.map((r) => {
      const mine = savedRows.current.get(r.id);
      return mine && mine.save > since ? mine.row : r;
    });
  // The page is keyed by session id; leaving it stops the pages of a large session still loading.
  const leaving = useRef(new AbortController());
  useEffect(() => () => leaving.current.abort(), []);
  const signal = leaving.current.signal;

  /**
   * Pages from `fromPage` to the end; earlier pages are kept as they are. Until the session has been read whole once
   * each page is drawn as it comes; after that the rows change once, when every page is read (a full Refresh of a
   * large session no longer shrinks the grid to its first 500 cards meanwhile).
   */
  const loadRows = async (fromPage: number) => {
    const since = saves.current;
    let page = fromPage;
    let acc = rowsRef.current.slice(0, (fromPage - 1) * rowsPerPage);
    const progressive = !loadedOnceRef.current;
    for (;;) {
      const res = await call<Page<Identification>>('GET', `/cardstream/v2/identification/?session=${encodeURIComponent(id)}&page_size=${rowsPerPage}&page=${page}`, { signal });
      acc = acc.concat(res.results);
      if (progressive) {
        acc = withSaves(acc, since);
        rowsRef.current = acc;
        setRows(acc);
      }
      if (!res.next || res.results.length < rowsPerPage) break;
      page += 1;
    }
    const before = rowsRef.current.length;
    acc = withSaves(acc, since);
    rowsRef.current = acc;
    setRows(acc);
    if (!loadedOnceRef.current) {
      loadedOnceRef.current = true;
      setLoadedOnce(true);
      setSaid(`${acc.length} ${acc.length === 1 ? 'card' : 'cards'}`);
      lastSaid.current = Date.now();
    } else if (acc.length > before) newCards.current += acc.length - before;
  };

  const refresh = async (full: boolean) => {
    if (busy.current) return;
    busy.current = true;
    const since = saves.current;
    try {
      const s = await call<Session>('GET', `/cardstream/v2/session/${encodeURIComponent(id)}/`, { signal });
      const before = lastSession.current;
      const changed = !before || full || s.identification_count !== rowsRef.current.length || s.total_price !== before.total_price;
      lastSession.current = s;
      setSession(s);
      if (changed) {
        const [sum] = await Promise.all([
          call<Summary>('GET', `/cardstream/v2/session/${encodeURIComponent(id)}/summary/`, { signal }),
          // New cards are appended in upload order: only the last page loaded and the ones after it are asked again;
          // fewer cards than drawn (one deleted, `DELETE …/identification/<id>/`) moved every page after it: all again (h187)
          loadRows(full || s.identification_count < rowsRef.current.length ? 1 : Math.floor(rowsRef.current.length / rowsPerPage) + 1),
        ]);
        setSummary(sum);
      } else if (s.status === 'live' && loadedOnceRef.current && rowsRef.current.length > 0) {
        // Same count and total: the last page read again all the same (one request), for what changes neither: an image
        // or a grading sent after its card, a card deleted and another sent at its price (h254: the card kept "no
        // image" until a new card came, a deleted card stayed and the new one never showed)
        // the newest cards only (those a late image or grading is for): 50 rows, not a page of 500 every 4 s (h256)
        const last = Math.floor((rowsRef.current.length - 1) / tailRows) + 1;
        const since2 = saves.current;
        const res = await call<Page<Identification>>('GET', `/cardstream/v2/identification/?session=${encodeURIComponent(id)}&page_size=${tailRows}&page=${last}`, { signal });
        const start = (last - 1) * tailRows;
        const mine = rowsRef.current.slice(start);
        const sameCards = res.results.length === mine.length && res.results.every((r, i) => r.id === mine[i]!.id);
        if (!sameCards) {
          const [sum] = await Promise.all([call<Summary>('GET', `/cardstream/v2/session/${encodeURIComponent(id)}/summary/`, { signal }), loadRows(1)]);
          setSummary(sum);
        } else if (res.results.some((r, i) => r.etag !== mine[i]!.etag)) {
          const next = withSaves([...rowsRef.current.slice(0, start), ...res.results], since2);
          rowsRef.current = next;
          setRows(next);
          setSummary(await call<Summary>('GET', `/cardstream/v2/session/${encodeURIComponent(id)}/summary/`, { signal }));
        }
      }
      // the total and summary read before a save made meanwhile: read again (h254: the total went back too)
      if (saves.current !== since) afterSave();
      setError(null);
      // a 404 that passed (a proxy during a deploy, a token swapped in another tab): polling goes on (h262)
      setGone(false);
      // new cards are said once per refresh at most, and not more often than every 10 s while a stream runs (a
      // refresh asked for by the user says them at once): "3 new cards", not every count the grid passed through
      if (newCards.current > 0 && (full || Date.now() - lastSaid.current >= sayNewCardsMs)) {
        const n = newCards.current;
        newCards.current = 0;
        lastSaid.current = Date.now();
        setSaid(`${n} new ${n === 1 ? 'card' : 'cards'}, ${rowsRef.current.length} in all`);
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && lastSession.current) {
        setGone(true);
        setError('This session no longer exists: it was deleted (or its workspace erased) after this page opened. The cards shown are what it held; nothing more will come.');
      } else if ((err as Error).name !== 'AbortError') setError(err);
    } finally {
      busy.current = false;
      setLoading(false);
    }
  };

  useEffect(() => {
    void refresh(true);
  }, []);

  useEffect(() => {
    if (session?.status !== 'live' || gone) return;
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') void refresh(false);
    }, pollMs);
    return () => clearInterval(t);
  }, [session?.status, gone]);

  const shown = useMemo(() => (filter.trim() ? filterRows(rows, filter) : rows), [rows, filter]);
  const selectedRow = rows.find((r) => r.id === selected) ?? null;
  // a filter typed says how many cards it matches (as the count line did when it was the live region)
  const filtered = useRef(false);
  useEffect(() => {
    if (!loadedOnceRef.current || (!filter.trim() && !filtered.current)) return;
    filtered.current = filter.trim() !== '';
    setSaid(filter.trim() ? `${shown.length} of ${rows.length} cards match` : `Filter cleared: ${rows.length} cards`);
  }, [filter]);

  // The tab's title names the session (every session's tab was "Session · Loupe console", h219).
  useEffect(() => {
    if (!session) return;
    // (no title set back on leaving: that ran after the next page had set its own, which became "Loupe console", h240)
    document.title = `${session.name || session.id} · Session · Loupe console`;
  }, [session?.name]);
  // The route moved the focus to the page's content while "Loading session…" showed (no heading yet): once the
  // session is drawn, its heading takes it, as every other page's does (h219: it stayed nowhere). Only when the
  // focus is still there: a reload keeps it at the document's start, a user who moved on keeps their place.
  const title = useRef<HTMLHeadingElement>(null);
  const arrived = useRef(false);
  useLayoutEffect(() => {
    if (!session || arrived.current) return;
    arrived.current = true;
    if (document.activeElement === document.getElementById('main')) title.current?.focus();
  }, [session]);

  // The session as this page read it: a close, reopen, rename or delete holds only while it is still that version, so
  // one decided on a stale page (another device renamed, closed or reopened it) is refused and the page read again
  const asRead = (): Record<string, string> => (session?.etag ? { 'if-match': session.etag } : {});
  const changedElsewhere = async (err: unknown, show: (e: unknown) => void) => {
    if (!(err instanceof ApiError && err.status === 412)) return show(err);
    // said at once (a large session's read takes seconds), then read again: a poll already on its way would make this
    // read a no-op, so it is waited for, and the page holds the new version before the message says so
    show('This session was changed elsewhere since this page read it (renamed, closed or reopened): reading it again…');
    while (busy.current) await new Promise((r) => setTimeout(r, 50));
    await refresh(true);
    show('This session was changed elsewhere since this page read it (renamed, closed or reopened): it has been read again; look, then try again.');
  };
  const act = async (action: 'close' | 'reopen') => {
    // closing stops the scanner's uploads (409) until someone reopens: asked, as Delete is
    if (action === 'close' && !confirm(`Close “${session?.name}”? The scanner app can add no more cards to it until it is reopened.`)) return;
    setActionError(null);
    try {
      setSession(await call<Session>('POST', `/cardstream/v2/session/${encodeURIComponent(id)}/${action}/`, { headers: asRead() }));
    } catch (err) {
      void changedElsewhere(err, setActionError);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete “${session?.name}” with its ${session?.identification_count} cards and images? This cannot be undone.`)) return;
    setActionError(null);
    try {
      await call('DELETE', `/cardstream/v2/session/${encodeURIComponent(id)}/`, { headers: asRead() });
      location.hash = '#/sessions';
    } catch (err) {
      void changedElsewhere(err, setActionError);
    }
  };
  const rename = async (e: Event) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget as HTMLFormElement).get('name') ?? '').trim();
    // a name of spaces left the heading and the session pickers blank
    if (!name) return setRenameError('A session needs a name: type one, or Cancel.');
    try {
      setSession(await call<Session>('PATCH', `/cardstream/v2/session/${encodeURIComponent(id)}/`, { body: { name }, headers: asRead() }));
      setRenaming(false);
      // a refusal said before is over (h166: it stayed on a closed session's page after the rename)
      setRenameError(null);
      // back to the button that opened the form, as Cancel does (h138: the focus fell to the page's start)
      setTimeout(() => document.querySelector<HTMLElement>('[data-rename]')?.focus());
    } catch (err) {
      void changedElsewhere(err, setRenameError);
    }
  };
  const exportCsv = () => {
    const blob = new Blob([sessionCsv(rows)], { type: 'text/csv;charset=utf-8' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = csvFileName(session?.name ?? 'session', id);
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  };
  // The total and the summary move with a price correction.
  const afterSave = () => {
    void call<Summary>('GET', `/cardstream/v2/session/${encodeURIComponent(id)}/summary/`).then(setSummary, () => undefined);
    void call<Session>('GET', `/cardstream/v2/session/${encodeURIComponent(id)}/`).then(setSession, () => undefined);
  };
  const saved = (row: Identification) => {
    saves.current += 1;
    savedRows.current.set(row.id, { row, save: saves.current });
    const next = rowsRef.current.map((r) => (r.id === row.id ? row : r));
    rowsRef.current = next;
    setRows(next);
    afterSave();
  };

  if (!session)
    return loading ? (
      <p class="loading" role="status">
        Loading session…
      </p>
    ) : (
      // a way on from a link to a session deleted (or of another workspace, or a server away): the page held the error
      // alone, the menu the only way out (h312)
      <section aria-labelledby="session-title">
        <div class="page-head">
          <a href="#/sessions" class="back">
            ← Sessions
          </a>
        </div>
        <h1 id="session-title">{error instanceof ApiError && error.status === 404 ? 'Session not found' : 'Session not loaded'}</h1>
        <ErrorBox error={error} />
        {error instanceof ApiError && error.status === 404 ? null : <button onClick={() => void refresh(true)}>Try again</button>}
      </section>
    );
  const exportable = loadedOnce && rows.length > 0;
  // the CSV's photo links are signed and stop working (an hour after the cards were read, unless the server says
  // otherwise): said beside the button
  const linksUntil = exportable ? linksExpireAt(rows.map((r) => r.image)) : undefined;
  const untilText = linksUntil === undefined ? '' : new Date(linksUntil).toDateString() === new Date().toDateString() ? new Date(linksUntil).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' }) : new Date(linksUntil).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
  const actions = (
    <div class="actions">
      {!renaming ? (
        <button data-rename onClick={() => setRenaming(true)}>
          Rename
        </button>
      ) : null}
      {session.status === 'live' ? <button onClick={() => act('close')}>Close session</button> : <button onClick={() => act('reopen')}>Reopen session</button>}
      {/* aria-disabled until the cards are read: disabled, a live session's refresh took the focus away from it (h219) */}
      <button onClick={() => exportable && exportCsv()} aria-disabled={!exportable} aria-describedby={linksUntil !== undefined ? 'csv-links' : undefined}>
        Export CSV
      </button>
      <button onClick={() => refresh(true)}>Refresh</button>
      <button class="danger" onClick={remove}>
        Delete
      </button>
      {linksUntil !== undefined ? (
        <span class="hint" id="csv-links" data-testid="csv-links">
          {linksUntil > Date.now() ? <>Photo links in the CSV work until <bdi>{untilText}</bdi>; Refresh renews them.</> : 'Photo links have expired: Refresh before exporting.'}
        </span>
      ) : null}
    </div>
  );
  return (
    <section aria-labelledby="session-title" class={`session${selectedRow ? ' with-drawer' : ''}`}>
      <div class="page-head">
        <a href="#/sessions" class="back">
          ← Sessions
        </a>
        {renaming ? (
          // Escape cancels, as Cancel does (as it closes the card's panel, h240)
          <form onSubmit={rename} class="row" onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), cancelRename())}>
            <label>
              <span class="sr-only">Session name</span>
              {/* takes the focus: the button pressed is gone (h84) */}
              <input name="name" dir="auto" defaultValue={session.name} maxLength={255} required ref={nameField} aria-invalid={renameError ? true : undefined} aria-describedby={renameError ? 'rename-error' : undefined} />
            </label>
            <button type="submit">Rename</button>
            <button
              type="button"
              class="link"
              onClick={cancelRename}
            >
              Cancel
            </button>
            <ErrorBox error={renameError} id="rename-error" />
          </form>
        ) : (
          <div class="title-line">
            {/* the badge beside the heading, not in it: the page's name was read "Friday stream #1 live" (h84) */}
            <h1 id="session-title" dir="auto" tabIndex={-1} ref={title} title={session.name}>
              {session.name}
            </h1>
            <span class={`badge ${session.status}`} title={statusMeaning[session.status]}>
              {session.status}
            </span>
          </div>
        )}
        {/* on a phone the session's actions fold behind one button, so its cards start on the first screen (h97: at y = 718 of 740) */}
        {narrow ? (
          <details class="more">
            <summary>Session actions</summary>
            {actions}
          </details>
        ) : (
          actions
        )}
      </div>
      <div class="stats" role="group" aria-label="Summary">
        <Stat label="Cards" value={summary?.identifications ?? session.identification_count} />
        <Stat label="Different cards" value={summary?.distinct_cards ?? '—'} />
        {/* an empty session has no total: "$0.00" read as cards worth nothing (h342) */}
        <Stat label="Total" value={(summary?.identifications ?? session.identification_count) === 0 ? '—' : rows.length > 0 && !rows.some((r) => r.price !== null && r.price !== undefined) ? 'not priced' : money(summary?.total_price ?? session.total_price)} />
        {/* spec 1's paid_calls: the recognition calls charged for identifying these cards */}
        <Stat label="Paid recognitions" value={summary?.paid_calls ?? '—'} />
        <Stat label="Average grade" value={summary?.average_grade !== null && summary?.average_grade !== undefined ? `${num(summary.average_grade, 2)} of 10` : '—'} />
        <Stat label="Started" value={<bdi>{when(session.started)}</bdi>} kind="started" />
      </div>
      <div class="row">
        <label class="inline grow">
          <span class="sr-only">Filter cards</span>
          <input type="search" dir="auto" placeholder="Filter loaded cards by name, set, number, note, sold, check…" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
        </label>
        {/* not a live region: it follows every card a live session gains; what is said is in the status below */}
        <span class="hint" data-testid="loaded">
          {!loadedOnce ? `Loading ${rows.length} of ${session.identification_count}…` : `${shown.length} of ${rows.length} cards`}
          {gone ? ' · deleted' : session.status === 'live' ? (error ? ' · live, not updating: the last refresh failed (retrying)' : ' · live, updating') : ''}
        </span>
        <span class="sr-only" role="status" data-testid="said">
          {!loadedOnce ? `Loading ${rows.length} of ${session.identification_count} cards…` : said}
        </span>
      </div>
      <ErrorBox error={actionError} />
      <ErrorBox error={error} />
      {/* an empty grid says why, rather than a blank box */}
      {shown.length === 0 && loadedOnce ? (
        <p class="empty">{rows.length === 0 ? (session.status === 'closed' ? 'No cards: the session is closed. Reopen it to add cards from a scanner app or from Recognition.' : 'No cards yet: a scanner app adds them as it identifies cards (this page picks them up while the session is live).') : `No loaded card matches “${filter.trim()}”.`}</p>
      ) : null}
      <div class="session-body">
        {/* on a phone the editor is a sheet over the grid: the cards under it take no focus while it is open (h84) */}
        {/* no empty box under "No cards yet" or "No loaded card matches" (h312: a blank panel a screen high) */}
        <div class="grid-holder" hidden={loadedOnce && shown.length === 0} inert={narrow && selectedRow !== undefined && selectedRow !== null ? true : undefined}>
        <CardGrid
          rows={shown}
          selected={selected}
          onOpen={(r) => {
            if (r.id !== selected && !leaveUnsaved()) return;
            setSelected(r.id);
          }}
          // Image links are signed for an hour; a page left open longer reads the rows again for fresh links.
          onImageError={(src) => {
            if (linkExpired(src)) void refresh(true);
          }}
        />
        </div>
        {selectedRow ? (
          <Editor
            key={selectedRow.id}
            row={selectedRow}
            sessionId={id}
            onSaved={saved}
            modal={narrow}
            // the open card's photo too: its link runs out as the grid's do (it stayed broken until a reload)
            onImageError={(src) => {
              if (linkExpired(src)) void refresh(true);
            }}
            onClose={() => {
              if (!leaveUnsaved()) return;
              returnTo.current = selectedRow.event_id;
              setSelected(null);
            }}
          />
        ) : null}
      </div>
    </section>
  );
}

/**
 * On a phone the card editor is a sheet over the grid: Tab and Shift+Tab go round inside it, as in a
 * dialog, instead of onto controls the sheet covers (h138: Shift+Tab from its first field focused the
 * grid's filter box, hidden under it). On a wider screen it is a panel beside the grid, and Tab leaves it.
 */
function keepTabInSheet(e: KeyboardEvent, sheet: HTMLElement): void {
  if (!window.matchMedia('(max-width: 760px)').matches) return;
  const focusable = [...sheet.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])')].filter((el) => el.offsetParent !== null);
  const firstEl = focusable[0];
  const lastEl = focusable[focusable.length - 1];
  if (!firstEl || !lastEl) return;
  if (e.shiftKey && document.activeElement === firstEl) {
    e.preventDefault();
    lastEl.focus();
  } else if (!e.shiftKey && document.activeElement === lastEl) {
    e.preventDefault();
    firstEl.focus();
  }
}
