import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call, messageOf, newKey } from '../api.ts';
import type { Shell } from '../app.tsx';
import { DropZone, ErrorBox, Links } from '../components/common.tsx';
import { RecentRequests } from '../components/recent-requests.tsx';
import { PriceChart } from '../components/price-chart.tsx';
import { linkExpired, num, when } from '../lib/format.ts';
import { cropToBase64, isImage, prepareImage, type PreparedImage } from '../lib/images.ts';
import { confidenceOf, eventIdOf, hashBytes, identificationFromObject, matchPlace, pickAlternative, READ_AS, type ReadAs } from '../lib/recognition-row.ts';
import { matchPrice, recognisedObjects, recognitionOutcome } from '../lib/request-summary.ts';
import type { AsyncRequest, MatchObject, Page, PriceStatsEntry, RecognitionRecord, RequestPreview, Session } from '../types.ts';

interface Photo {
  file: File;
  /** What it was read as: its cards go into a session as that kind's rows. */
  readAs: ReadAs;
  image: PreparedImage;
  hash: string;
  record?: RecognitionRecord;
  error?: string;
}

/**
 * How sure recognition is of a match, in words, the distance it comes from in the title: "distance 0.031" said
 * neither what it measures nor that lower is surer (h326). The bands are the session rows' (`confidenceOf`).
 */
function Sureness({ distance }: { distance: number | undefined }) {
  const level = confidenceOf(distance);
  return (
    <span title={`match distance ${num(distance, 3)}: 0 is an exact match, the lower the surer`}>{level ? `${level} confidence` : 'confidence not known'}</span>
  );
}

/** A queued request's state in words (the API's CREATED, PROCESSING, DONE in the title). */
const requestState = (status: string) => ({ CREATED: 'Waiting', PROCESSING: 'Recognising', DONE: 'Done' })[status] ?? status;

/** A card's name as shown: an empty `full_name` falls back to `name`, then to words (an empty string named nothing). */
const cardName = (card: Record<string, unknown>): string => String(card.full_name || card.name || 'unnamed card');

function CardResult({ object, onPick }: { object: MatchObject; onPick?: (index: number) => void }) {
  const ident = object._identification;
  const best = ident?.best_match;
  const place = best ? matchPlace(best) : null;
  // "It is this one" goes with the list it was in: the keyboard goes to the card's heading, now that alternative's
  // name (h219: the focus fell to the page's start with the button)
  const heading = useRef<HTMLHeadingElement>(null);
  const picked = useRef(false);
  useLayoutEffect(() => {
    if (!best || !picked.current) return;
    picked.current = false;
    heading.current?.focus();
  }, [best]);
  return (
    <article class="panel match" aria-label={`Card ${object.id}`}>
      {/* the number of its box on the photo beside it: a binder page's eight results were eight headings, five of them
          "Not identified", and none said which card it was (h312) */}
      <span class="box-no" aria-hidden="true" title={`Box ${object.id} on the photo`}>
        {object.id}
      </span>
      {best ? (
        <>
          <h3 data-testid="best-match" tabIndex={-1} ref={heading}>
            {cardName(best)}
          </h3>
          <p class="hint">
            {[place!.set, best.set_code, place!.number ? `#${String(place!.number)}${best.out_of ? `/${String(best.out_of)}` : ''}` : null, best.rarity, place!.year].filter(Boolean).map(String).join(' · ')} · <Sureness distance={ident.distances[0]} />
          </p>
          {matchPrice(best) ? <p data-testid="match-price">Price about {matchPrice(best)} (median)</p> : null}
          <Links links={best.links} />
          <PriceChart stats={best.price_stats as PriceStatsEntry[] | undefined} />
        </>
      ) : (
        <h3>Not identified</h3>
      )}
      {ident?.alternatives.length ? (
        <details>
          <summary>
            {ident.alternatives.length} {ident.alternatives.length === 1 ? 'alternative' : 'alternatives'}
          </summary>
          <ol class="alts">
            {ident.alternatives.map((a, i) => (
              <li key={i}>
                {cardName(a)}{' '}
                <span class="hint">
                  <Sureness distance={ident.distances[i + (best ? 1 : 0)]} />
                </span>
                {/* a card recognition could not name: a person who sees it is this one can say so, and add it. The
                    name holds the words shown, the card after them (WCAG 2.5.3: it was "It is Pikachu V") */}
                {!best && onPick ? (
                  <button
                    class="link"
                    onClick={() => {
                      picked.current = true;
                      onPick(i);
                    }}
                  >
                    It is this one<span class="sr-only">: {cardName(a)}</span>
                  </button>
                ) : null}
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </article>
  );
}

/**
 * A photo with each detected card's box, numbered as in the list beside it. The boxes are in the photo's own pixels
 * (`_width` × `_height`) and the overlay is drawn in them, stretched over the picture shown: a request's preview, the
 * photo scaled down on both axes, takes them scaled by the same factors.
 */
function PhotoBoxes({ src, alt, record, width, height, onError }: { src: string; alt: string; record: RecognitionRecord | undefined; width?: number; height?: number; onError?: () => void }) {
  const w = record?._width ?? width;
  const h = record?._height ?? height;
  return (
    <div class="photo-boxes">
      <img src={src} alt={alt} onError={onError} />
      {w && h ? (
        <svg viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" aria-hidden="true">
          {(record?._objects ?? []).map((o) => {
            const [x0, y0, x1, y1] = o.bound_box;
            return (
              <g key={o.id}>
                <rect x={x0} y={y0} width={x1 - x0} height={y1 - y0} class={o._identification?.best_match ? 'hit' : 'miss'} />
                <text x={x0 + 8} y={y0 + Math.max(24, h / 25)} style={{ fontSize: `${Math.max(16, h / 25)}px` }}>
                  {o.id}
                </text>
              </g>
            );
          })}
        </svg>
      ) : null}
    </div>
  );
}

/**
 * A finished asynchronous recognition request (an app's, sent through the queue), its records as the page shows a
 * photo's. Each photo is the server's preview of it (`GET …/request/<id>/previews`, not in the spec: a photo sent as
 * data too, whose bytes the request drops once done, h365), else the `_url` the app sent (echoed in the result: a
 * request finished before the server kept previews, or with LOUPE_REQUEST_PREVIEWS off).
 */
function RequestView({ request, onClose }: { request: AsyncRequest; onClose: () => void }) {
  const records = (request.response?.records ?? []) as unknown as RecognitionRecord[];
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), [request.id]);
  // by record; null until asked (a request not done has none), and where the server cannot say (an older server: 404)
  const [previews, setPreviews] = useState<Map<number, RequestPreview> | null>(null);
  const relinked = useRef(0);
  // the request on screen: an answer for one closed meanwhile is dropped
  const shownId = useRef(request.id);
  shownId.current = request.id;
  const loadPreviews = (id: string) =>
    call<{ previews: RequestPreview[] }>('GET', `/account/v2/request/${id}/previews`).then(
      (r) => id === shownId.current && setPreviews(new Map(r.previews.map((p) => [p.index, p]))),
      // none to show (an older server has no such call): each record says so, or shows its `_url`
      () => id === shownId.current && setPreviews((shown) => shown ?? new Map()),
    );
  useEffect(() => {
    setPreviews(null);
    if (request.status === 'DONE') void loadPreviews(request.id);
  }, [request.id, request.status]);
  // a link signed an hour ago (the view left open): asked again, at most once a minute
  const previewFailed = (src: string) => {
    if (!linkExpired(src) || Date.now() - relinked.current < 60_000) return;
    relinked.current = Date.now();
    void loadPreviews(request.id);
  };
  return (
    <section class="panel request-view" aria-labelledby="request-title">
      <div class="page-head">
        <h2 id="request-title" tabIndex={-1} ref={heading}>
          Request of {when(request.created)}
        </h2>
        <button class="link" onClick={onClose}>
          Hide
        </button>
      </div>
      <p class="hint" title={`${request.type} ${request.request?.endpoint ?? ''} · ${request.id}`}>
        {request.status !== 'DONE'
          ? `${request.request?.records?.length ?? 0} photos sent through the queue · ${requestState(request.status)}: open it again in a moment`
          : `${records.length} ${records.length === 1 ? 'photo' : 'photos'} sent through the queue · ${recognitionOutcome(request.response?.records ?? [])}`}
      </p>
      {records.map((r, i) => {
        const preview = previews?.get(i);
        const sent = typeof (r as { _url?: unknown })._url === 'string' ? ((r as { _url?: string })._url as string) : undefined;
        // the server's copy first, once it is known whether there is one: the shop's link may have gone since, and
        // hot-linking it shows the app's host our visit
        const url = previews === null ? undefined : (preview?._url ?? sent);
        const name = r._id !== undefined && r._id !== null && r._id !== '' ? String(r._id) : `Photo ${i + 1}`;
        return (
          <div class="recognised" key={i}>
            {url ? (
              <PhotoBoxes src={url} alt={name} record={r} onError={preview ? () => previewFailed(preview._url) : undefined} />
            ) : (
              <p class="no-photo hint">{noPhoto(r, previews !== null)}</p>
            )}
            <div>
              <h3>{name}</h3>
              <p class={r._status.code >= 400 ? 'error' : 'hint'} title={`${r._status.code} ${r._status.text}`} data-testid="request-record-status">
                {r._status.code >= 400 ? `Could not be read: ${r._status.text}` : photoLine(r)}
              </p>
              {shownObjects(r).map((o) => (
                <CardResult key={o.id} object={o} />
              ))}
            </div>
          </div>
        );
      })}
    </section>
  );
}

/** Why a finished request's record shows no photo: the server kept none of a photo it could not read, or of any before previews. */
function noPhoto(record: RecognitionRecord, asked: boolean): string {
  if (record._status.code === 400) return 'No photo: it could not be read (see below).';
  if (!asked) return 'Loading the photo…';
  return 'No photo: the app sent it as data, and the server kept no preview of it (a request finished before it kept them, or with LOUPE_REQUEST_PREVIEWS off).';
}

/** A record's objects shown as results: a slab's label only where it was identified on its own. */
const shownObjects = (record: RecognitionRecord | undefined) => (record ? recognisedObjects(record as unknown as Record<string, unknown>) : []);

/** A photo's result in a line: how many cards were found in it and how many of them named. */
function photoLine(record: RecognitionRecord): string {
  const objects = shownObjects(record);
  const named = objects.filter((o) => o._identification?.best_match).length;
  if (!objects.length) return 'No card found in this photo.';
  if (objects.length === 1) return named ? '1 card found and identified.' : '1 card found, not identified.';
  return `${objects.length} cards found, ${named === objects.length ? 'all identified' : `${named} identified`}.`;
}

export function RecognitionPage({ shell }: { shell: Shell }) {
  const [photos, setPhotos] = useState<Photo[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [analyzeAll, setAnalyzeAll] = useState(false);
  const [readAs, setReadAs] = useState<ReadAs>('tcg');
  const [sessions, setSessions] = useState<Session[]>([]);
  const [target, setTarget] = useState('');
  const [added, setAdded] = useState<string | null>(null);
  const [addedNote, setAddedNote] = useState('');
  const [adding, setAdding] = useState(false);
  // a new session asked for and not yet answered: a retry after a lost answer sends the same key and body, so the
  // session made before is answered again rather than made (and charged) twice (h97)
  const pendingSession = useRef<{ key: string; body: Record<string, unknown> } | null>(null);
  // the batch on screen: a drop while another is still being read replaces it, and the older one's answers are dropped
  const batch = useRef(0);
  const inFlight = useRef<AbortController | null>(null);
  // an app's request sent through the queue, opened from the list below (h342: they showed nowhere)
  const [opened, setOpened] = useState<AsyncRequest | null>(null);
  const [openError, setOpenError] = useState<unknown>(null);
  const openRequest = async (id: string) => {
    setOpenError(null);
    try {
      setOpened(await call<AsyncRequest>('GET', `/account/v2/request/${id}`));
    } catch (err) {
      setOpenError(err);
    }
  };

  useEffect(() => {
    // the live ones among the newest 500 (the API's largest page): a shop's main session is rarely further back
    call<Page<Session>>('GET', '/cardstream/v2/session/?page_size=500').then(
      (p) => setSessions(p.results.filter((s) => s.status === 'live')),
      () => undefined,
    );
  }, []);

  const recognise = async (files: File[]) => {
    const images = files.filter(isImage);
    if (!images.length) return setError('Drop photos of cards (JPEG, PNG, WebP).');
    const mine = ++batch.current;
    inFlight.current?.abort();
    const abort = new AbortController();
    inFlight.current = abort;
    const current = () => batch.current === mine;
    setBusy(true);
    setError(null);
    setAdded(null);
    setAddedNote('');
    const list: Photo[] = [];
    for (const file of images) {
      const image = await prepareImage(file, 2048);
      list.push({ file, readAs, image, hash: hashBytes(image.bytes) });
    }
    if (!current()) return;
    setPhotos(list);
    // One photo a call, two at a time: each answer shows as soon as it is ready.
    let next = 0;
    const worker = async () => {
      while (next < list.length && current()) {
        const p = list[next++]!;
        try {
          const res = await call<{ records: RecognitionRecord[] }>('POST', READ_AS[p.readAs].path, { acceptMixed: true, signal: abort.signal, body: { records: [{ _id: p.file.name, _base64: p.image.base64 }], price_stats: true, ...(analyzeAll ? { analyze_all: true } : {}) } });
          p.record = res.records[0];
        } catch (err) {
          if ((err as Error).name === 'AbortError') return;
          p.error = messageOf(err);
        }
        if (current()) setPhotos([...list]);
      }
    };
    await Promise.all([worker(), worker()]);
    shell.creditsChanged();
    if (current()) setBusy(false);
  };

  const addToSession = async () => {
    // one session a press: a second click while the first is on its way made (and charged) another
    if (adding || busy) return;
    setAdding(true);
    setError(null);
    try {
      let sessionId = target;
      if (!sessionId) {
        // a batch is read as one kind (a drop replaces the batch before it): the session's game is that kind's
        const game = READ_AS[photos[0]?.readAs ?? readAs].game;
        pendingSession.current ??= { key: newKey(), body: { name: `Recognised ${new Date().toLocaleString()}`, game, platform: 'other', client: { name: 'loupe-console', version: '1', os: 'web' } } };
        const s = await call<Session>('POST', '/cardstream/v2/session/', { headers: { 'idempotency-key': pendingSession.current.key }, body: pendingSession.current.body });
        pendingSession.current = null;
        sessionId = s.id;
        // the cards go here on a retry too, if adding them fails after the session was made
        setTarget(sessionId);
        // listed, so the picker shows where the cards went (and a second add goes there knowingly)
        setSessions((list) => [s, ...list.filter((x) => x.id !== s.id)]);
        shell.creditsChanged();
      }
      const seen = new Date().toISOString();
      const rows: { row: Record<string, unknown>; photo: Photo; object: MatchObject }[] = [];
      for (const p of photos) {
        for (const o of p.record?._objects ?? []) {
          const row = identificationFromObject(o, eventIdOf(p.hash, o), seen, p.readAs);
          if (row) rows.push({ row, photo: p, object: o });
        }
      }
      if (!rows.length) return setError('No identified card to add.');
      const res = await call<{ created: number; updated: number; duplicates: number }>('POST', `/cardstream/v2/session/${sessionId}/identifications/`, { body: { identifications: rows.map((r) => r.row) } });
      // Each card's own crop as its session image, so the session grid shows that card and not the whole binder page.
      for (const r of rows) {
        const crop = await cropToBase64(r.photo.file, r.object.bound_box, r.photo.record?._width);
        if (crop) await call('POST', `/cardstream/v2/session/${sessionId}/images/`, { body: { event_id: r.row.event_id, image: crop } });
      }
      setAdded(sessionId);
      // what the API did, not what was sent: pressed again, the same cards are its duplicates, not more cards (h312: it
      // said "Added 1 card" a second time, and the session still held one)
      const again = res.updated + res.duplicates;
      setAddedNote(
        res.created === rows.length
          ? `Added ${rows.length} ${rows.length === 1 ? 'card' : 'cards'} to the session.`
          : `Added ${res.created} ${res.created === 1 ? 'card' : 'cards'} to the session; ${again} ${again === 1 ? 'was' : 'were'} in it already.`,
      );
      setError(null);
      setTarget(sessionId);
    } catch (err) {
      setError(err);
    } finally {
      setAdding(false);
    }
  };

  const pick = (photo: Photo, object: MatchObject, index: number) => {
    if (!photo.record?._objects) return;
    photo.record = { ...photo.record, _objects: photo.record._objects.map((o) => (o === object ? pickAlternative(o, index) : o)) };
    setPhotos([...photos]);
  };

  const identified = photos.reduce((n, p) => n + (p.record?._objects ?? []).filter((o) => o._identification?.best_match).length, 0);
  return (
    <section aria-labelledby="recognition-title">
      <h1 id="recognition-title">Recognition</h1>
      <div class="panel">
        <label>
          The photos show{' '}
          <select value={readAs} onChange={(e) => setReadAs((e.target as HTMLSelectElement).value as ReadAs)}>
            {(Object.keys(READ_AS) as ReadAs[]).map((k) => (
              <option key={k} value={k}>
                {READ_AS[k].label}
              </option>
            ))}
          </select>
        </label>
        <DropZone label="Drop photos of cards, or a binder page" multiple onFiles={(f) => void recognise(f)} />
        <label class="check">
          <input type="checkbox" checked={analyzeAll} onChange={(e) => setAnalyzeAll((e.target as HTMLInputElement).checked)} /> <span title="The API's analyze_all option">Every card in a photo (a credit per card)</span>
        </label>
      </div>
      {busy ? <p class="loading">Recognising…</p> : null}
      {/* read out: the page said nothing to a screen reader before, during or after (h84) */}
      <p class="sr-only" role="status">
        {busy ? `Recognising ${photos.length} ${photos.length === 1 ? 'photo' : 'photos'}…` : photos.length ? `Done: ${photos.filter((p) => p.record && p.record._status.code < 300).length} of ${photos.length} ${photos.length === 1 ? 'photo' : 'photos'} read${identified ? `, ${identified} ${identified === 1 ? 'card' : 'cards'} identified` : ''}${photos.some((p) => p.error || (p.record && p.record._status.code >= 400)) ? '; some could not be read' : ''}.` : ''}
      </p>
      <ErrorBox error={error} />
      {identified ? (
        <div class="row panel">
          <label>
            Add {identified} identified {identified === 1 ? 'card' : 'cards'} to
            <select value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
              <option value="">a new session (1 credit)</option>
              {sessions.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
          {/* aria-disabled while it works: a disabled button dropped the focus to the page's start (h166, as h84) */}
          <button onClick={() => void addToSession()} aria-disabled={adding || busy}>
            {adding ? 'Adding…' : 'Add to session'}
          </button>
          {/* on the page before it fills, so a screen reader says it (h166: the cards were added unsaid) */}
          {/* seen as well as said: a second press adds no card, and says so (h312) */}
          <span role="status" class="hint">
            {addedNote}
          </span>
          {added ? (
            <a href={`#/sessions/${added}`} data-testid="added-link">
              Open the session
            </a>
          ) : null}
        </div>
      ) : null}
      {photos.map((p) => (
        <div class="recognised" key={p.hash + p.file.name}>
          <PhotoBoxes src={p.image.preview} alt={p.file.name} record={p.record} width={p.image.width} height={p.image.height} />
          <div>
            <h2>{p.file.name}</h2>
            {p.error ? (
              <p class="error" role="alert">
                {p.error}
              </p>
            ) : null}
            {/* what the photo gave, in words (it read "200 OK"); the API's status in the title (h326) */}
            {p.record ? (
              <p class={p.record._status.code >= 400 ? 'error' : 'hint'} title={`${p.record._status.code} ${p.record._status.text}`}>
                {p.record._status.code >= 400 ? `Could not be read: ${p.record._status.text}` : photoLine(p.record)}
              </p>
            ) : !p.error ? (
              <p class="loading">Waiting…</p>
            ) : null}
            {shownObjects(p.record).map((o) => (
              <CardResult key={o.id} object={o} onPick={(i) => pick(p, o, i)} />
            ))}
          </div>
        </div>
      ))}
      <ErrorBox error={openError} />
      {opened ? <RequestView request={opened} onClose={() => setOpened(null)} /> : null}
      <RecentRequests
        type="collectibles-recognition"
        label="Recent requests from apps"
        refresh={0}
        stateName={requestState}
        outcome={(r) => (r.response ? recognitionOutcome(r.response.records) : '')}
        onOpen={(id) => void openRequest(id)}
      />
    </section>
  );
}
