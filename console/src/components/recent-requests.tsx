import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { when } from '../lib/format.ts';
import { webhookNote } from '../lib/request-summary.ts';
import type { AsyncRequest, Page } from '../types.ts';
import { ErrorBox } from './common.tsx';

/**
 * The newest asynchronous requests of one type, each a button that opens it. The list endpoint gives a request's state
 * (spec 3: id, status, type, created; and its webhook's, h355, said on the line when failed or pending), and "Done" said nothing of a photo that could not be graded (h342), so a
 * finished request's line says how its records went, read from its detail once the list is unfolded: ten small reads
 * (about 1 KB compressed each, 3 ms on a local server), two at a time, and none while the list stays folded.
 */
export function RecentRequests(props: {
  type: string;
  label: string;
  /** Bumped to read the list again (a request just finished). */
  refresh: number;
  stateName: (status: string) => string;
  outcome: (request: AsyncRequest) => string;
  picture?: (request: AsyncRequest) => string | undefined;
  onOpen: (id: string) => void;
}) {
  const [recent, setRecent] = useState<AsyncRequest[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState(false);
  const [details, setDetails] = useState<Record<string, AsyncRequest>>({});
  const asked = useRef(new Set<string>());

  useEffect(() => {
    let live = true;
    call<Page<AsyncRequest>>('GET', `/account/v2/request/?type=${props.type}&page_size=10`).then(
      (p) => {
        if (!live) return;
        setRecent(p.results);
        setError(null);
      },
      // said, not swallowed: with the server away the list was simply empty (h84)
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [props.type, props.refresh]);

  useEffect(() => {
    if (!open) return;
    let live = true;
    const todo = recent.filter((r) => r.status === 'DONE' && !asked.current.has(r.id));
    for (const r of todo) asked.current.add(r.id);
    const worker = async () => {
      for (let r = todo.shift(); r && live; r = todo.shift()) {
        const id = r.id;
        try {
          const d = await call<AsyncRequest>('GET', `/account/v2/request/${id}`);
          if (live) setDetails((all) => ({ ...all, [id]: d }));
        } catch {
          // the line keeps its state alone; opening the request says what went wrong
          asked.current.delete(id);
        }
      }
    };
    void Promise.all([worker(), worker()]);
    return () => {
      live = false;
    };
  }, [open, recent]);

  return (
    <details class="panel recent-requests" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{props.label}</summary>
      <ErrorBox error={error} />
      {open && !error && recent.length === 0 ? <p class="hint">No requests yet.</p> : null}
      <ul class="plain">
        {recent.map((r) => {
          const d = details[r.id];
          const pic = d && props.picture?.(d);
          const outcome = d ? props.outcome(d) : '';
          // from the list's row: an app's request whose receiver never got its answer is seen without opening it
          const hook = webhookNote(r.webhook_state);
          return (
            <li key={r.id}>
              <button class="link request-line" onClick={() => props.onOpen(r.id)}>
                {/* the card's own picture where the result has one; a fixed box, so lines that have none stay aligned */}
                {props.picture ? (
                  <span class="request-thumb" aria-hidden="true">
                    {pic ? <img src={pic} alt="" loading="lazy" decoding="async" /> : null}
                  </span>
                ) : null}
                <span>
                  {when(r.created)} · <span title={r.status}>{props.stateName(r.status)}</span>
                  {outcome ? <span data-testid="request-outcome"> · {outcome}</span> : null}
                  {hook ? <span data-testid="request-webhook"> · {hook}</span> : null}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </details>
  );
}
