import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, messageOf, storedToken, storedWorkspace, storeToken, storeWorkspace } from './api.ts';
import { loadAccount, refreshCredits, type AccountInfo } from './account.ts';
import { SessionsPage } from './pages/sessions.tsx';
import { SessionPage } from './pages/session.tsx';
import { discardQuestion, leaveUnsaved, unsavedEdits } from './lib/unsaved.ts';
import { SearchPage } from './pages/search.tsx';
import { GradingPage } from './pages/grading.tsx';
import { RecognitionPage } from './pages/recognition.tsx';
import { MatchingPage } from './pages/matching.tsx';

const pages = [
  { path: 'sessions', label: 'Sessions', service: 'cardstream' },
  { path: 'search', label: 'Search', service: 'visual_search' },
  { path: 'grading', label: 'Grading', service: 'requests' },
  { path: 'recognition', label: 'Recognition', service: 'collectibles' },
  { path: 'matching', label: 'Image matching', service: 'image_matching' },
] as const;

/**
 * The header's services in the words of the pages they open (the API's own names, `cardstream`, `image_matching`, were
 * a developer's; they stay in the title). The services no page uses are named for what they do.
 */
const serviceNames: Record<string, string> = {
  cardstream: 'Sessions',
  visual_search: 'Search',
  text_search: 'Text search',
  requests: 'Grading',
  collectibles: 'Recognition',
  image_matching: 'Image matching',
  descriptor: 'Image descriptors',
  // faces and persons are found, never identified (README, status.md): "Face identity" promised what is not done
  identity: 'Face and person detection',
};

/** Hash routes (`#/sessions/<id>`): the server serves one page, and a reload keeps the place. */
function useRoute(): string[] {
  // a page's own state (`#/sessions?page=5&q=…`) follows a `?` and is the page's to read (hashParams)
  const read = () => location.hash.replace(/^#\/?/, '').split('?')[0]!.split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  const shown = useRef(location.href);
  useEffect(() => {
    // A link of the page (← Sessions, the menu) asks before the address moves: refused, no history entry is made.
    const click = (e: MouseEvent) => {
      const link = e.target instanceof Element ? e.target.closest('a[href^="#"]') : null;
      if (!link || !unsavedEdits.current || e.defaultPrevented || link.getAttribute('href') === '#main') return;
      if (!leaveUnsaved()) e.preventDefault();
    };
    // Back, Forward or an address typed: the address has moved already. Kept, it is pushed back as a new entry (a
    // replaced one overwrote the entry Back had reached, h124), so Back from there goes where it went before.
    const on = () => {
      if (unsavedEdits.current && location.href !== shown.current && !confirm(discardQuestion)) {
        history.pushState(history.state, '', shown.current);
        return;
      }
      unsavedEdits.current = false;
      shown.current = location.href;
      setRoute(read());
    };
    // a reload or a closed tab: the browser's own question
    const unload = (e: BeforeUnloadEvent) => {
      if (!unsavedEdits.current) return;
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('hashchange', on);
    window.addEventListener('beforeunload', unload);
    document.addEventListener('click', click, true);
    // an address that moved between the first render and now (a link opened while the console starts, on a busy
    // machine) sent its hashchange before anyone listened: read it now, or the page drawn stays the old address's
    if (location.href !== shown.current) on();
    return () => {
      window.removeEventListener('hashchange', on);
      window.removeEventListener('beforeunload', unload);
      document.removeEventListener('click', click, true);
    };
  }, []);
  return route;
}

export interface Shell {
  account: AccountInfo;
  /** Call after a priced call so the header shows what is left. */
  creditsChanged: () => void;
}

/** The header's workspace: the token's default, or one the user names (the API cannot list them). */
function WorkspaceSwitch({ account, onChanged }: { account: AccountInfo; onChanged: (a: AccountInfo) => void }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  // the keyboard follows the control that replaced the one pressed: the field when the form opens, the switch button
  // when it closes (h138: both times the focus fell to the page's start)
  const field = useRef<HTMLInputElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const opened = useRef(false);
  useLayoutEffect(() => {
    if (editing) field.current?.focus();
    else if (opened.current) opener.current?.focus();
    opened.current = editing || opened.current;
  }, [editing]);
  const use = async (id: string | null) => {
    // the page is drawn again for the other workspace: typed changes go only when the user says so (h124)
    if (!leaveUnsaved()) return;
    const before = storedWorkspace();
    storeWorkspace(id);
    try {
      onChanged(await loadAccount(storedToken()!));
      setEditing(false);
      setError(null);
      // a session of the workspace left is none of this one's: its page said "Session … not found" (h157)
      if (id !== before && /^#\/sessions?\/[^/]/.test(location.hash)) location.replace('#/sessions');
    } catch (err) {
      storeWorkspace(before);
      setError(err instanceof ApiError && err.status === 404 ? 'No workspace of this account has that id.' : messageOf(err));
    }
  };
  if (!editing)
    return (
      <dd>
        {/* the token's own workspace is "default"; another is its id's start (the whole id in the title) */}
        <span title={account.workspace ?? ''} data-testid="workspace">
          {!account.workspace ? '—' : storedWorkspace() ? account.workspace.slice(0, 8) : 'default'}
        </span>{' '}
        <button
          ref={opener}
          class="link small"
          onClick={() => {
            setValue('');
            setEditing(true);
          }}
          aria-label="Switch workspace"
        >
          switch
        </button>
      </dd>
    );
  return (
    <dd>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void use(value.trim() || null);
        }}
        // Escape cancels, as Cancel does (h240)
        onKeyDown={(e) => {
          if (e.key !== 'Escape') return;
          e.stopPropagation();
          setEditing(false);
          setTimeout(() => opener.current?.focus());
        }}
      >
        <label class="inline">
          <span class="sr-only">Workspace id</span>
          <input ref={field} value={value} placeholder="workspace id (empty: default)" aria-invalid={error ? true : undefined} aria-describedby={error ? 'workspace-error' : undefined} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="small">
          Use
        </button>
        <button type="button" class="link small" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </form>
      {error ? (
        <span class="error" role="alert" id="workspace-error">
          {error}
        </span>
      ) : null}
    </dd>
  );
}

function SignIn({ onSignedIn, error }: { onSignedIn: (token: string, account: AccountInfo) => void; error: unknown }) {
  // a token kept through a failed restore (the server was away) is offered again: Sign in retries it
  const [token, setToken] = useState(() => storedToken() ?? '');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(error);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const t = token.trim().replace(/^(Token|Bearer)\s+/i, '');
      onSignedIn(t, await loadAccount(t));
    } catch (err) {
      // what to do first, in a shop's words; how a token is made after it, for whoever runs the server
      setFailure(err instanceof ApiError && err.status === 401 ? 'The server does not know this token. Check that it was pasted whole (tokens start with lp_), or ask whoever runs Loupe for one. (401; tokens are made with npx loupe token add --account <id>.)' : messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>Loupe console</h1>
      <form onSubmit={submit}>
        <label for="token">API token</label>
        {/* the refusal is the field's own error, read with it (h166: said aloud, tied to nothing) */}
        <input id="token" name="token" type="password" autocomplete="off" required placeholder="lp_…" value={token} aria-invalid={failure ? true : undefined} aria-describedby={failure ? 'token-error' : undefined} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
        <p class="hint" title="Kept in the tab's session storage">
          Kept in this browser tab only: closing the tab signs you out.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {failure ? (
          <p class="error" role="alert" id="token-error">
            {typeof failure === 'string' ? failure : messageOf(failure)}
          </p>
        ) : null}
      </form>
    </main>
  );
}

export function App() {
  const [account, setAccount] = useState<AccountInfo | null>(null);
  const [restoring, setRestoring] = useState(() => storedToken() !== null);
  const [restoreError, setRestoreError] = useState<unknown>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const route = useRoute();

  useEffect(() => {
    const token = storedToken();
    if (!token) return;
    loadAccount(token)
      .then(setAccount)
      .catch((err) => {
        // only a token the server refuses is forgotten: a server away for a moment keeps it for the next try
        if (err instanceof ApiError && err.status === 401) storeToken(null);
        setRestoreError(err);
      })
      .finally(() => setRestoring(false));
  }, []);

  const signOut = useCallback(() => {
    // asked already, or refused by the server: the address below moves without the question (it came after the
    // sign-in screen, and Cancel put the session's address back on it, h124)
    unsavedEdits.current = false;
    storeToken(null);
    storeWorkspace(null);
    // what the pages remembered for this tab (the Search page's collection) is the account's, not the next one's
    sessionStorage.clear();
    setAccount(null);
    // the phone menu Sign out sits in closes with it: the next person found it open (h116)
    setMenuOpen(false);
    // the address forgets the account's page too, however the sign-out came (the button, a revoked token): the next
    // person at a shop's computer was shown "Session <id> not found" (h106, h111). Pages behind in the tab's history
    // keep their addresses: a browser lets no page erase them.
    location.replace('#/sessions');
  }, []);
  // the button asks first; a token the server no longer takes signs out whatever was typed
  const signOutAsked = useCallback(() => {
    if (leaveUnsaved()) signOut();
  }, [signOut]);
  useEffect(() => {
    // A token revoked while the console is open: every page falls back to sign-in, saying why.
    const on = () => {
      signOut();
      setRestoreError(new ApiError(401, 'unauthorized', 'The server no longer accepts this token (it was withdrawn, or this is another server): sign in again.', undefined));
    };
    window.addEventListener('loupe:unauthorized', on);
    return () => window.removeEventListener('loupe:unauthorized', on);
  }, [signOut]);
  const creditsChanged = useCallback(() => {
    void refreshCredits().then((credits) => setAccount((a) => (a && credits !== null ? { ...a, credits } : a)));
  }, []);
  useEffect(() => setMenuOpen(false), [route.join('/')]);
  // The phone menu closes with Escape, its button taking the focus back (it stayed open, h84). One listener from
  // the start, reading the state through a ref: one added when the menu opened missed an Escape pressed at once.
  const menuIsOpen = useRef(false);
  menuIsOpen.current = menuOpen;
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !menuIsOpen.current) return;
      setMenuOpen(false);
      document.querySelector<HTMLElement>('.menu-toggle')?.focus();
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, []);
  // Each page has its own title, and a page chosen from the menu takes the focus to its heading, so a screen
  // reader tells where it is (every page was "Loupe console", and the focus stayed on the menu link, h84).
  const routeKey = route.join('/');
  const firstRoute = useRef(true);
  // before the browser paints (a layout effect): a focus moved a frame later took text already being typed on the
  // new page (the drawer's note went into the card's name the same way, CI)
  useLayoutEffect(() => {
    if (!account) {
      // the sign-in screen names itself too (it kept the title of the page signed out from, h240)
      document.title = 'Sign in · Loupe console';
      return;
    }
    const [name = 'sessions', id] = route;
    const label = name === 'sessions' && id ? 'Session' : (pages.find((p) => p.path === name)?.label ?? 'Sessions');
    document.title = `${label} · Loupe console`;
    const heading = document.querySelector<HTMLElement>('main h1');
    if (firstRoute.current) {
      firstRoute.current = false;
      return;
    }
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    } else {
      // a page still loading has no heading yet ("Loading session…"): the focus goes to the page's content, not left
      // on a control the route change removed (h219: it fell to the document's start); the page moves it on to its
      // heading once that is drawn (SessionPage)
      document.getElementById('main')?.focus();
    }
  }, [routeKey, account !== null]);

  if (restoring) return <p class="loading">Loading…</p>;
  if (!account)
    return (
      <SignIn
        error={restoreError}
        onSignedIn={(token, info) => {
          // what the last sign-out said is over: a later sign-out starts without it
          setRestoreError(null);
          storeToken(token);
          setAccount(info);
          if (!location.hash) location.hash = '#/sessions';
        }}
      />
    );

  const shell: Shell = { account, creditsChanged };
  const [page = 'sessions', id] = route;
  const enabled = Object.entries(account.services)
    .filter(([, on]) => on)
    .map(([s]) => s)
    .sort();
  let body;
  if (page === 'sessions' && id) body = <SessionPage key={id} shell={shell} id={id} />;
  else if (page === 'search') body = <SearchPage shell={shell} />;
  else if (page === 'grading') body = <GradingPage shell={shell} />;
  else if (page === 'recognition') body = <RecognitionPage shell={shell} />;
  else if (page === 'matching') body = <MatchingPage shell={shell} />;
  else body = <SessionsPage shell={shell} />;

  return (
    <>
      {/* the hash is the router's: the link moves the focus itself, so it never reads as a page address */}
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <div class="brand">Loupe</div>
        <button class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="nav" class={menuOpen ? 'open' : ''} aria-label="Pages">
          {pages.map((p) => (
            <a key={p.path} href={`#/${p.path}`} aria-current={page === p.path ? 'page' : undefined} class={account.services[p.service] === false ? 'off' : ''} title={account.services[p.service] === false ? `Not enabled for this account (the ${p.service} service)` : undefined}>
              {p.label}
            </a>
          ))}
        </nav>
        <dl class="account" aria-label="Account">
          <div>
            <dt>Workspace</dt>
            <WorkspaceSwitch account={account} onChanged={setAccount} />
          </div>
          <div>
            <dt>Credits</dt>
            <dd data-testid="credits">{account.credits ?? '—'}</dd>
          </div>
          <div class="services">
            <dt>Services</dt>
            <dd data-testid="services" title={enabled.length ? `API services: ${enabled.join(', ')}` : undefined}>
              {enabled.length ? enabled.map((s) => serviceNames[s] ?? s).sort().join(', ') : 'none'}
            </dd>
          </div>
        </dl>
        <button class="link" onClick={signOutAsked}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1} key={account.workspace ?? ''}>
        {body}
      </main>
    </>
  );
}

