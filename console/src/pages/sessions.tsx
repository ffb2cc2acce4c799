import { useEffect, useRef, useState } from 'preact/hooks';
import { call, newKey } from '../api.ts';
import type { Shell } from '../app.tsx';
import { hashParams } from '../lib/hash-params.ts';
import { ErrorBox, HeadRow } from '../components/common.tsx';
import { sessionGameUnset, sessionTotal, statusMeaning, when } from '../lib/format.ts';
import type { Page, Session } from '../types.ts';

const pageSize = 50;

export function SessionsPage({ shell }: { shell: Shell }) {
  // the page and the search live in the address, so Back from a session and a reload return to them
  const [initial] = useState(hashParams);
  const [search, setSearch] = useState(initial.get('q') ?? '');
  const [query, setQuery] = useState((initial.get('q') ?? '').trim());
  const [page, setPage] = useState(Math.max(1, Math.floor(Number(initial.get('page'))) || 1));
  const [creating, setCreating] = useState(false);
  // the key of a create not yet answered, with what it asked for: pressed again after a lost answer, the same session
  // is answered rather than a second one made and charged (h97); another name or game is another session
  const pendingCreate = useRef<{ key: string; body: string } | null>(null);
  const [data, setData] = useState<Page<Session> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [newName, setNewName] = useState('');
  const [newGame, setNewGame] = useState('');

  // Typing waits 300 ms before asking the server, so a name typed quickly is one request.
  useEffect(() => {
    const t = setTimeout(() => {
      if (search.trim() === query) return;
      setQuery(search.trim());
      setPage(1);
    }, 300);
    return () => clearTimeout(t);
  }, [search]);

  const [tick, setTick] = useState(0);
  const load = async (signal?: AbortSignal) => {
    try {
      const params = new URLSearchParams({ page: String(page), page_size: String(pageSize) });
      if (query) params.set('search', query);
      setData(await call<Page<Session>>('GET', `/cardstream/v2/session/?${params}`, { signal }));
      setError(null);
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      // a refused search leaves no list that looks like its answer
      setData(null);
      setError(err);
    }
  };
  // The address is the page's: a link or Back to another page of the list (the menu's "Sessions" too) is read again.
  useEffect(() => {
    const on = () => {
      if (!/^#\/?sessions(\?|$)/.test(location.hash)) return;
      const p = hashParams();
      const q = (p.get('q') ?? '').trim();
      setSearch(p.get('q') ?? '');
      setQuery(q);
      setPage(Math.max(1, Math.floor(Number(p.get('page'))) || 1));
    };
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  // Sessions a scanner app starts while the list is open appear within half a minute (a hidden tab asks nothing).
  useEffect(() => {
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') setTick((n) => n + 1);
    }, 30_000);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    const ac = new AbortController();
    void load(ac.signal);
    const params = new URLSearchParams();
    if (page > 1) params.set('page', String(page));
    if (query) params.set('q', query);
    const address = `#/sessions${params.size ? `?${params}` : ''}`;
    // replaced, not pushed: paging is not a step Back should retrace. Only while the address is still the list's: one
    // moved to another page before this ran (a link opened as the console starts) is that page's (CI, stop 89: a
    // session's address was overwritten with the list's, and the list stayed). The list's are every form the route
    // reads as it: none, `#/`, `#/sessions`, `#/sessions/` (a typed `#/` kept its search and page out of the address)
    if (location.hash !== address && /^(#\/?)?(sessions\/?)?(\?|$)/.test(location.hash)) history.replaceState(null, '', address);
    return () => ac.abort();
  }, [page, query, tick]);

  const create = async (e: Event) => {
    e.preventDefault();
    // one session a press: a second click while the first is on its way would make (and charge) another
    if (creating) return;
    setCreating(true);
    try {
      const body = { name: newName.trim() || undefined, game: newGame, platform: 'other', client: { name: 'loupe-console', version: '1', os: navigator.platform || 'web' } };
      if (pendingCreate.current?.body !== JSON.stringify(body)) pendingCreate.current = { key: newKey(), body: JSON.stringify(body) };
      const s = await call<Session>('POST', '/cardstream/v2/session/', { headers: { 'idempotency-key': pendingCreate.current.key }, body });
      pendingCreate.current = null;
      shell.creditsChanged();
      location.hash = `#/sessions/${s.id}`;
    } catch (err) {
      setError(err);
    } finally {
      setCreating(false);
    }
  };

  const pages = data ? Math.max(1, Math.ceil(data.count / pageSize)) : 1;
  return (
    <section aria-labelledby="sessions-title">
      <div class="page-head">
        <h1 id="sessions-title">Sessions</h1>
        <label class="inline">
          <span class="sr-only">Search sessions</span>
          <input type="search" placeholder="Search name, game, platform…" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      <details class="panel">
        <summary>New session</summary>
        <form class="row" onSubmit={create}>
          <label>
            Name
            <input value={newName} maxLength={255} onInput={(e) => setNewName((e.target as HTMLInputElement).value)} placeholder="Friday stream" />
          </label>
          <label>
            Game
            <select value={newGame} onChange={(e) => setNewGame((e.target as HTMLSelectElement).value)}>
              {/* the API's empty game: a session of no one game, which "Mixed" promised cards of several (h342) */}
              <option value="">Not set (any game)</option>
              <option>TCG</option>
              <option>Sports</option>
              <option>Comics</option>
              <option>Slabs</option>
            </select>
          </label>
          <button type="submit" disabled={creating} aria-busy={creating}>
            {creating ? 'Creating…' : 'Create (1 credit)'}
          </button>
        </form>
      </details>
      <ErrorBox error={error} />
      {data ? (
        <>
          {/* no table of a header row alone when nothing is listed (h240) */}
          <div class="table-wrap" hidden={data.results.length === 0}>
            {/* on a phone each session is a block of its fields, labelled, not a row scrolled sideways for its total (h97) */}
            <table class="list stacked">
              <caption class="sr-only">Sessions, newest first</caption>
              <HeadRow columns={['Name', 'Game', 'Status', 'Started', 'Cards', 'Total']} num={['Cards', 'Total']} />
              <tbody>
                {data.results.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <a href={`#/sessions/${s.id}`} dir="auto">
                        {s.name || s.id}
                      </a>
                    </td>
                    <td data-label="Game">
                      {s.game ? (
                        <bdi>{s.game}</bdi>
                      ) : (
                        <span class="hint" title={sessionGameUnset(s.identification_count)}>
                          not set
                        </span>
                      )}
                    </td>
                    <td data-label="Status">
                      <span class={`badge ${s.status}`} title={statusMeaning[s.status]}>
                        {s.status}
                      </span>
                    </td>
                    <td data-label="Started">
                      <bdi>{when(s.started)}</bdi>
                    </td>
                    <td class="num" data-label="Cards">
                      {s.identification_count}
                    </td>
                    <td class="num" data-label="Total" title={sessionTotal(s.identification_count, s.total_price).title}>
                      {sessionTotal(s.identification_count, s.total_price).text}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {data.results.length === 0 ? (
            data.count > 0 ? (
              <p class="empty">
                No sessions on page {page}.{' '}
                <button class="link" onClick={() => setPage(1)}>
                  Go to page 1
                </button>
              </p>
            ) : (
              <p class="empty">{query ? `No session matches “${query}”.` : 'No sessions yet. A scanner app creates them, or use “New session”.'}</p>
            )
          ) : null}
          <nav class="pager" aria-label="Pages of sessions">
            {/* aria-disabled, not disabled: a disabled button drops the focus to the page's start (h84) */}
            <button aria-disabled={page <= 1} onClick={() => page > 1 && setPage(page - 1)}>
              Previous
            </button>
            {/* read out as it changes: a search's or a page's count (h84) */}
            <span role="status">
              Page {page} of {pages} · {data.count} {data.count === 1 ? 'session' : 'sessions'}
              {data.count === 0 && query ? <span class="sr-only"> match “{query}”</span> : null}
            </span>
            <button aria-disabled={!data.next} onClick={() => data.next && setPage(page + 1)}>
              Next
            </button>
          </nav>
        </>
      ) : error ? null : (
        <p class="loading">Loading…</p>
      )}
    </section>
  );
}
