import { useState } from 'preact/hooks';
import { ApiError, call, messageOf } from '../api.ts';
import type { Shell } from '../app.tsx';
import { DropZone, ErrorBox } from '../components/common.tsx';
import { checkFilter } from '../lib/filter-check.ts';
import { num } from '../lib/format.ts';
import { collectionLine } from '../lib/collection-info.ts';
import { isImage, prepareImage } from '../lib/images.ts';

/** Collection types and the bases of spec 2 §4 (the `-new` ones for fashion and home decor). */
const types = {
  photo: { base: '/similarity/photos/v2', text: '/similarity/text/photos/v2/text' },
  product: { base: '/similarity/products-new/v2', text: '/similarity/text/products/v2/text' },
  custom: { base: '/similarity/custom/v2', text: null },
  fashion: { base: '/similarity/fashion-new/v2', text: '/similarity/text/fashion/v2/text' },
  homedecor: { base: '/similarity/homedecor-new/v2', text: '/similarity/text/homedecor/v2/text' },
} as const;
type CollectionType = keyof typeof types;
/** The types as a shop names them (the API's `homedecor` is the option's value). */
const typeLabels: Record<CollectionType, string> = { photo: 'Photos', product: 'Products', custom: 'Custom', fashion: 'Fashion', homedecor: 'Home decor' };

interface Envelope {
  status: { code: number; text: string };
  answer_records?: Record<string, unknown>[];
  answer_distances?: number[];
  answer_count?: number;
  skipped_records?: (Record<string, unknown> & { _reason?: { status?: { code: number; text: string } } })[];
  info?: string;
  query_records?: Record<string, unknown>[];
}

const collectionKey = 'loupe.collection';

/** The API cannot list collections (operators make them with `loupe collection create`): the id is typed once per tab. */
function savedCollection(): { id: string; type: CollectionType } {
  try {
    const v = JSON.parse(sessionStorage.getItem(collectionKey) ?? '') as { id: string; type: CollectionType };
    if (v && typeof v.id === 'string' && v.type in types) return v;
  } catch {
    // nothing saved yet
  }
  return { id: '', type: 'photo' };
}

/** The answer in one line (`3 results, most alike first`): what the results' status region says. */
function resultSummary(envelope: Envelope): string {
  const n = (envelope.answer_records ?? []).length;
  // the API's `200 OK` led the line (h326: a developer's words); it is the line's title now
  return `${n} ${n === 1 ? 'result' : 'results'}${n > 1 ? ', most alike first' : ''}`;
}

/**
 * Each result's picture: the server's own thumbnail of the image the record was stored with (signed links from the
 * collection's `thumbnails` method, h357), else the record's `_url` (a record stored before the server kept
 * thumbnails, or with them turned off), else none: a record sent as `_base64` kept no picture before.
 */
function pictureOf(record: Record<string, unknown>, thumbnails: Record<string, string | null>): string | null {
  const own = thumbnails[String(record._id)];
  if (typeof own === 'string') return own;
  return typeof record._url === 'string' ? record._url : null;
}

function Results({ envelope, byText, onDelete, thumbnails }: { envelope: Envelope; byText: boolean; onDelete: (id: string) => void; thumbnails: Record<string, string | null> }) {
  const records = envelope.answer_records ?? [];
  return (
    <div>
      {/* what a distance is, once: "distance 42.8" said nothing of its scale or direction (h326). Words are no picture:
          "0 is the same picture" stood over a text search's results too, whose distances never come near 0 (h342) */}
      {records.length && envelope.answer_distances?.length ? (
        <p class="hint" data-testid="distance-meaning">
          {byText ? 'Distance: how well a result matches the words; the lower it is, the better the match.' : 'Distance: how different a result is from the query; 0 is the same picture, and the lower it is, the more alike.'}
        </p>
      ) : null}
      <ul class="results">
        {records.map((r, i) => {
          const id = String(r._id);
          const extra = Object.entries(r).filter(([k]) => !['_id', '_url'].includes(k));
          const picture = pictureOf(r, thumbnails);
          return (
            <li key={id} class="result">
              {/* the picture is the result: said so (h138: an empty alt left only the id and distance) */}
              {picture !== null ? <img src={picture} alt={`Image of record ${id}`} loading="lazy" /> : <span class="no-image">no stored image</span>}
              {/* the whole id, wrapped: cut to "flamingo/image_…" the results could not be told apart (h312) */}
              <span class="card-name result-id">{id}</span>
              {envelope.answer_distances?.[i] !== undefined ? <span class="distance" title="lower is closer (0 is the same image or the best match)">distance {num(envelope.answer_distances[i], 4)}</span> : null}
              {extra.length ? (
                <details>
                  <summary>Stored details</summary>
                  <pre>{JSON.stringify(Object.fromEntries(extra), null, 1)}</pre>
                </details>
              ) : null}
              <button class="danger small" onClick={() => onDelete(id)} aria-label={`Delete record ${id}`}>
                Delete
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

export function SearchPage({ shell }: { shell: Shell }) {
  const [collection, setCollection] = useState(savedCollection);
  const [info, setInfo] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [filterText, setFilterText] = useState('');
  // the field's text as typed, k read from it: a field emptied to type another number jumped to 30 (h312: select all and
  // type 5 gave 305); an empty or out-of-range k searches with the nearest the API takes
  const [kText, setKText] = useState('12');
  const k = Math.min(1000, Math.max(1, Math.floor(Number(kText)) || 12));
  const [text, setText] = useState('');
  const [results, setResults] = useState<Envelope | null>(null);
  // each result's thumbnail link by _id (null: the record has none), asked for after each search
  const [thumbnails, setThumbnails] = useState<Record<string, string | null>>({});
  const [busy, setBusy] = useState(false);
  const [lastImage, setLastImage] = useState<File | null>(null);
  const [query, setQuery] = useState<string | null>(null);
  // the photo searched with, shown above its results: its file name alone left the shop comparing the results with a
  // picture no longer on screen (h342). A local object URL (the page's policy allows blob: images); null for words.
  const [queryPicture, setQueryPicture] = useState<string | null>(null);
  const [insertMsg, setInsertMsg] = useState<string | null>(null);
  const [tags, setTags] = useState('');
  const [attrs, setAttrs] = useState('');
  const filter = checkFilter(filterText);
  const base = types[collection.type].base;
  const headers = { 'collection-id': collection.id.trim() };

  const connect = async (e: Event) => {
    e.preventDefault();
    sessionStorage.setItem(collectionKey, JSON.stringify(collection));
    try {
      const ping = await call<Envelope>('GET', `${base}/ping`, { headers });
      setInfo(ping.info ?? ping.status.text);
      setError(null);
    } catch (err) {
      setInfo(null);
      setError(err);
    }
  };
  /** An error that answers the search asked for: the previous answer no longer shows under it. */
  const refused = (err: unknown) => {
    setResults(null);
    setError(err);
  };
  const run = async (label: string, path: string, body: Record<string, unknown>, picture: string | null = null) => {
    if (!filter.ok) return refused(filter.message);
    setBusy(true);
    setError(null);
    try {
      const env = await call<Envelope>('POST', path, { headers, body: { ...body, k, fields_to_return: ['*'], ...(filter.filter ? { filter: filter.filter } : {}) } });
      setThumbnails(await thumbnailsOf(env));
      setResults(env);
      setQuery(label);
      setQueryPicture((before) => {
        if (before && before !== picture) URL.revokeObjectURL(before);
        return picture;
      });
      shell.creditsChanged();
    } catch (err) {
      setResults(null);
      if (err instanceof ApiError && path.includes('/text') && err.status === 404) setError(`Text search is not available on this server yet: search with an image instead. (404: ${err.detail})`);
      else if (err instanceof ApiError && err.status === 422) setError(`The server could not read this query: ${err.detail} (422)`);
      else setError(err);
    } finally {
      setBusy(false);
    }
  };
  /** The results' thumbnail links; none (each result as before: its `_url` or no picture) when the server cannot say. */
  const thumbnailsOf = async (env: Envelope): Promise<Record<string, string | null>> => {
    const ids = (env.answer_records ?? []).map((r) => r._id).filter((id) => typeof id === 'string' || typeof id === 'number');
    if (!ids.length) return {};
    try {
      const found = await call<Envelope>('POST', `${base}/thumbnails`, { headers, body: { records: ids.slice(0, 1000).map((_id) => ({ _id })) } });
      return Object.fromEntries((found.answer_records ?? []).map((r) => [String(r._id), typeof r._thumbnail === 'string' ? r._thumbnail : null]));
    } catch {
      return {};
    }
  };
  const byImage = async (files: File[]) => {
    const f = files.find(isImage);
    if (!f) return refused('Drop an image file (JPEG, PNG, WebP, TIFF).');
    setLastImage(f);
    let img;
    try {
      img = await prepareImage(f, 1024);
    } catch {
      return refused(`${f.name} could not be read as an image.`);
    }
    await run(`image ${f.name}`, `${base}/visualKNN`, { query_record: { _base64: img.base64 } }, img.preview);
  };
  const byText = (e: Event) => {
    e.preventDefault();
    // the button is aria-disabled while a search runs, and still pressed
    if (busy) return;
    const path = types[collection.type].text;
    if (!path) return refused('Custom collections cannot be searched by words: search with an image. (The API has text search for photo, product, fashion and home decor collections, spec 2 §4.)');
    void run(`text “${text}”`, path, { query_record: { _text_data: text } });
  };
  const insert = async (files: File[]) => {
    const images = files.filter(isImage);
    // a drop of no image did nothing at all
    if (!images.length) return setError(`No image among ${files.map((f) => f.name).join(', ') || 'the files'}: only JPEG, PNG, WebP or TIFF files can be added.`);
    // the others are named, not dropped unsaid (h312: "1 inserted" for two files chosen)
    const notImages = files.filter((f) => !isImage(f)).map((f) => `${f.name}: not an image, not sent`);
    let extra: Record<string, unknown> = {};
    if (attrs.trim()) {
      try {
        extra = JSON.parse(attrs) as Record<string, unknown>;
        if (!extra || typeof extra !== 'object' || Array.isArray(extra)) throw new Error('not an object');
      } catch {
        return setError('Details to store must be written as a JSON object, such as {"price": 12, "color": "red"}.');
      }
    }
    // an _id given in Attributes names the record (it was replaced by the file name); it can name one only
    if (extra._id !== undefined && images.length > 1) return setError(`An _id in the details names one image, and ${images.length} images were dropped: drop one, or leave _id out (each image is stored under its file name).`);
    setBusy(true);
    setError(null);
    const lines: string[] = [...notImages];
    // files of one name from different folders are different photos: each its own _id, "name (2)" after the first
    // (the second was refused as a repeat of the first, h240)
    const seen = new Map<string, number>();
    const ids = images.map((f) => {
      const n = (seen.get(f.name) ?? 0) + 1;
      seen.set(f.name, n);
      return n === 1 ? f.name : `${f.name} (${n})`;
    });
    try {
      // Ten records per insert (spec 2 §8).
      for (let i = 0; i < images.length; i += 10) {
        const batch = await Promise.all(images.slice(i, i + 10).map((f) => prepareImage(f, 1024)));
        const tagList = tags.split(',').map((t) => t.trim()).filter(Boolean);
        const records = batch.map((img, k) => ({ _id: ids[i + k]!, ...extra, _base64: img.base64, ...(tagList.length ? { tags: tagList } : {}) }));
        try {
          const env = await call<Envelope>('POST', `${base}/insert`, { headers, body: { records } });
          // how many were added, in words (it read `200 OK: 2 inserted`)
          const n = env.answer_count ?? 0;
          lines.push(`${n} ${n === 1 ? 'image' : 'images'} added`);
          for (const s of env.skipped_records ?? []) lines.push(`${String(s._id)}: not added (${s._reason?.status?.text ?? 'skipped'})`);
        } catch (err) {
          const body = err instanceof ApiError ? (err.body as Envelope | undefined) : undefined;
          lines.push(messageOf(err));
          for (const s of body?.skipped_records ?? []) lines.push(`${String(s._id)}: not added (${s._reason?.status?.text ?? 'skipped'})`);
        }
      }
      shell.creditsChanged();
      await refreshInfo();
    } finally {
      setInsertMsg(lines.join('\n'));
      setBusy(false);
    }
  };
  // the collection's line says its records as they are now (it kept the count from when it was opened, h240)
  const refreshInfo = () => call<Envelope>('GET', `${base}/ping`, { headers }).then((ping) => setInfo(ping.info ?? ping.status.text), () => undefined);
  const remove = async (id: string) => {
    if (!confirm(`Delete record ${id} from the collection?`)) return;
    try {
      await call<Envelope>('POST', `${base}/delete`, { headers, body: { records: [{ _id: id }] } });
      void refreshInfo();
      let next: string | undefined;
      setResults((r) => {
        if (!r?.answer_records) return r;
        const i = r.answer_records.findIndex((x) => String(x._id) === id);
        if (i < 0) return r;
        const rest = r.answer_records.filter((_, j) => j !== i);
        next = rest[Math.min(i, rest.length - 1)]?._id as string | undefined;
        return { ...r, answer_records: rest, answer_distances: r.answer_distances?.filter((_, j) => j !== i) };
      });
      // the focus goes to the next result's Delete, or the results' heading, not to the page's start with the tile (h138)
      setTimeout(() => (document.querySelector<HTMLElement>(next !== undefined ? `[aria-label="Delete record ${CSS.escape(String(next))}"]` : '#results-title') ?? document.getElementById('results-title'))?.focus());
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title">Search a collection</h1>
      <form class="row panel" onSubmit={connect} aria-label="Collection">
        <label>
          Collection type
          <select value={collection.type} onChange={(e) => setCollection({ ...collection, type: (e.target as HTMLSelectElement).value as CollectionType })}>
            {(Object.keys(types) as CollectionType[]).map((t) => (
              <option key={t} value={t}>
                {typeLabels[t]}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Collection id
          <input name="collection" value={collection.id} required placeholder="as given by whoever runs Loupe" title="Made with loupe collection create (the API cannot list collections)" onInput={(e) => setCollection({ ...collection, id: (e.target as HTMLInputElement).value })} />
        </label>
        <button type="submit">Open</button>
      </form>
      {/* a status, said when a collection opens (h166: only a failure was); its name and size in words, the server's
          line (the index, its vector size, the text engine) folded under it for a developer (h326) */}
      <p class="hint" role="status" data-testid="collection-info">
        {info !== null ? collectionLine(info) : null}
      </p>
      {info ? (
        <details class="hint">
          <summary>Technical details</summary>
          {info}
        </details>
      ) : null}
      <div class="search-grid">
        <div class="panel">
          <h2>Query</h2>
          <DropZone label="Drop a query image or choose one" onFiles={(f) => void byImage(f)} />
          {lastImage ? (
            <button type="button" aria-disabled={busy} onClick={() => !busy && void byImage([lastImage])}>
              Search again with {lastImage.name} (the filter and number of results as they are now)
            </button>
          ) : null}
          <form class="row" onSubmit={byText}>
            <label class="grow">
              Text query
              <input value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} placeholder="red dress, robe rouge…" required />
            </label>
            {/* aria-disabled while it works: a disabled button dropped the focus to the page's start (h166, as h84) */}
            <button type="submit" aria-disabled={busy}>
              Search text
            </button>
          </form>
          <label title="k: the number of nearest records asked for">
            How many results
            <input type="number" min={1} max={1000} value={kText} onInput={(e) => setKText((e.target as HTMLInputElement).value)} />
          </label>
          <label for="filter">Filter (optional, MongoDB syntax)</label>
          <textarea id="filter" rows={3} value={filterText} placeholder='{"price": {"$lt": 50}}' aria-invalid={!filter.ok} aria-describedby="filter-msg" onInput={(e) => setFilterText((e.target as HTMLTextAreaElement).value)} />
          <p id="filter-msg" class={filter.ok ? 'hint' : 'error'}>
            {filter.ok ? (filter.filter ? 'Only records whose stored details match the filter are searched.' : 'No filter: every record is searched. Example: {"price": {"$lt": 50}} keeps prices under 50.') : filter.message}
          </p>
          <details>
            <summary>Add images to the collection</summary>
            <label>
              Tags (comma-separated)
              <input value={tags} onInput={(e) => setTags((e.target as HTMLInputElement).value)} />
            </label>
            <label title="A JSON object stored with each image">
              Details to store (JSON, optional)
              <textarea rows={2} value={attrs} onInput={(e) => setAttrs((e.target as HTMLTextAreaElement).value)} placeholder='{"price": 12}' />
            </label>
            <DropZone label="Drop images to add (each is stored under its file name)" multiple onFiles={(f) => void insert(f)} />
            {/* on the page from the start, so what an insert did is announced when it is written (h138) */}
            <div role="status">{insertMsg ? <pre class="log">{insertMsg}</pre> : null}</div>
          </details>
        </div>
        <div>
          <h2 id="results-title" tabIndex={-1}>
            Results{query ? ` for ${query}` : ''}
          </h2>
          {/* a live region on the page before its first results: one added already filled is not read out by every screen
              reader (h138). Only the one-line summary: the whole list in it was read out, ids, fields and every Delete, at
              each search (h219) */}
          <p class="hint" aria-live="polite">
            {busy ? <span class="loading">Searching…</span> : results ? <span data-testid="result-status" title={`${results.status.code} ${results.status.text}`}>{resultSummary(results)}</span> : null}
          </p>
          {results && queryPicture ? <img class="query-picture" src={queryPicture} alt={`The photo searched with${query ? `, ${query.replace(/^image /, '')}` : ''}`} data-testid="query-picture" /> : null}
          {results ? <Results envelope={results} byText={queryPicture === null} onDelete={(id) => void remove(id)} thumbnails={thumbnails} /> : null}
          <ErrorBox error={error} />
        </div>
      </div>
    </section>
  );
}
