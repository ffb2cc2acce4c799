import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api.ts';
import type { Shell } from '../app.tsx';
import { DropZone, ErrorBox, Stat } from '../components/common.tsx';
import { RecentRequests } from '../components/recent-requests.tsx';
import { linkExpired, num } from '../lib/format.ts';
import { isImage, prepareImage } from '../lib/images.ts';
import { gradingOutcome, gradingPicture } from '../lib/request-summary.ts';
import type { AsyncRequest } from '../types.ts';

const steps = ['CREATED', 'PROCESSING', 'DONE'] as const;
/** A request's state in words (the API's CREATED, PROCESSING, DONE stay in the titles, h326). */
const stepNames: Record<string, string> = { CREATED: 'Sent', PROCESSING: 'Grading', DONE: 'Done' };
const stepName = (status: string) => stepNames[status] ?? status.charAt(0) + status.slice(1).toLowerCase();
/** The grade labels as headings (`final` read as the API's key). */
const gradeLabels: Record<string, string> = { final: 'Final', condition: 'Condition', centering: 'Centering', corners: 'Corners', edges: 'Edges', surface: 'Surface' };

type Rec = Record<string, unknown> & {
  _id?: string;
  _status?: { code: number; text: string };
  grades?: Record<string, unknown>;
  card?: { centering?: Record<string, unknown>; _tags?: Record<string, { name: string; prob?: number }[]> }[];
  corners?: { name: string; grade?: number }[];
  edges?: { name: string; grade?: number }[];
};

const failedCount = (records: Rec[]) => records.filter((r) => (r._status?.code ?? 200) >= 300).length;

function GradeRecord({ rec, onImageError }: { rec: Rec; onImageError: (src: string) => void }) {
  const ok = (rec._status?.code ?? 200) < 300;
  const card = rec.card?.[0];
  const centering = card?.centering;
  const grades = rec.grades ?? {};
  // The condition endpoint answers with a label on the card object, not with grades (spec 3 §4).
  const condition = (rec._objects as { Condition?: { label?: string; value?: number; mode?: string }[] }[] | undefined)?.[0]?.Condition?.[0];
  return (
    <article class="panel grade-record" aria-label={`Result ${rec._id ?? ''}`}>
      {/* the heading the record's name, its status under it: heading navigation read a 300-character sentence (h166) */}
      <h2>{rec._id ?? 'Card'}</h2>
      {/* a failed record drawn as an error, not a grey hint (h240) */}
      {/* only a photo that could not be graded says anything here: "200 OK" over every result was a developer's (h326) */}
      {rec._status && !ok ? (
        <p class="error" title={`${rec._status.code} ${rec._status.text}`}>
          Could not grade this photo: {rec._status.text}
        </p>
      ) : null}
      {ok ? (
        <>
          <div class="stats">
            {(['final', 'condition', 'centering', 'corners', 'edges', 'surface'] as const)
              .filter((k) => grades[k] !== undefined)
              .map((k) => (
                // a grade's scale said (h312: "Final 8.6" read as a score of unknown range; the condition line says "of 10")
                <Stat key={k} label={gradeLabels[k] ?? k} value={typeof grades[k] === 'number' ? `${num(grades[k], 1)} of 10` : grades[k] === null ? 'not measured' : String(grades[k])} />
              ))}
          </div>
          {condition ? (
            <p data-testid="condition-label">
              Condition: <strong>{condition.label}</strong> ({num(condition.value, 1)} of 10{condition.mode ? `, ${condition.mode} scale` : ''})
            </p>
          ) : null}
          <div class="overlays">
            {typeof rec._full_url_card === 'string' ? (
              <figure>
                <img src={rec._full_url_card} alt="The photo with the card's outline, corners and edges drawn over it" data-testid="full-overlay" onError={(e) => onImageError((e.currentTarget as HTMLImageElement).src)} />
                <figcaption>Detected card and grades</figcaption>
              </figure>
            ) : null}
            {typeof rec._exact_url_card === 'string' ? (
              <figure>
                <img src={rec._exact_url_card} alt="The card straightened, with its centering margins drawn" data-testid="exact-overlay" onError={(e) => onImageError((e.currentTarget as HTMLImageElement).src)} />
                <figcaption>Centering</figcaption>
              </figure>
            ) : null}
            {typeof rec._clean_url_card === 'string' ? (
              <figure>
                <img src={rec._clean_url_card} alt="The card straightened" onError={(e) => onImageError((e.currentTarget as HTMLImageElement).src)} />
                <figcaption>Card</figcaption>
              </figure>
            ) : null}
          </div>
          {centering ? (
            <p>
              {typeof centering.detail === 'string' && !centering['left/right']
                ? `Centering not measured: ${centering.detail}`
                : `Centering: left/right ${String(centering['left/right'] ?? '—')}, top/bottom ${String(centering['top/bottom'] ?? '—')} (the share of the border on each side; 50/50 is perfectly centred)`}
            </p>
          ) : null}
          {rec.corners?.some((c) => c.grade !== undefined) || rec.edges?.some((c) => c.grade !== undefined) ? (
            <table class="mini">
              <caption>Corners and edges, each graded out of 10</caption>
              <tbody>
                {[...(rec.corners ?? []), ...(rec.edges ?? [])].map((c) => (
                  <tr key={c.name}>
                    <th scope="row">{c.name.replace('_', ' ').toLowerCase()}</th>
                    <td>{num(c.grade, 1)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {card?._tags ? (
            <p class="hint">
              {Object.entries(card._tags)
                .map(([tag, values]) => `${tag}: ${values[0]?.name ?? '—'}`)
                .join(' · ')}
            </p>
          ) : null}
        </>
      ) : null}
    </article>
  );
}

export function GradingPage({ shell }: { shell: Shell }) {
  const [endpoint, setEndpoint] = useState('grade');
  const [files, setFiles] = useState<File[]>([]);
  const [request, setRequest] = useState<AsyncRequest | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [started, setStarted] = useState(0);
  const [elapsed, setElapsed] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [recentRead, setRecentRead] = useState(0);
  const poll = useRef<ReturnType<typeof setTimeout> | null>(null);
  const following = useRef(0);

  useEffect(() => {
    return () => {
      if (poll.current) clearTimeout(poll.current);
      // left the page: a loop whose call is out stops when it returns
      following.current++;
    };
  }, []);

  /** The light status call every second until DONE, then the detail once: one large answer, not one per second. */
  const follow = (id: string, since: number) => {
    if (poll.current) clearTimeout(poll.current);
    // one request followed at a time: an earlier loop whose call is still out stops when it returns
    const mine = ++following.current;
    let wait = 1000;
    const tick = async () => {
      if (mine !== following.current) return;
      try {
        const s = await call<{ status: string }>('GET', `/account/v2/request/${id}/status`);
        if (mine !== following.current) return;
        setStatus(s.status);
        setElapsed(Date.now() - since);
        setError(null);
        wait = 1000;
        if (s.status === 'DONE') {
          const done = await call<AsyncRequest>('GET', `/account/v2/request/${id}`);
          if (mine !== following.current) return;
          setRequest(done);
          shell.creditsChanged();
          setRecentRead((n) => n + 1);
          return;
        }
      } catch (err) {
        if (mine !== following.current) return;
        setError(err);
        setElapsed(Date.now() - since);
        // the request lives on the server: a server away for a while (unreachable, 5xx, busy) is asked
        // again, less and less often; an answer about the request itself (gone, not the caller's) ends it
        const status = err instanceof ApiError ? err.status : 0;
        if (status !== 0 && status !== 429 && status < 500) return;
        wait = Math.min(15_000, wait * 2);
      }
      poll.current = setTimeout(() => void tick(), wait);
    };
    void tick();
  };

  const running = status !== null && status !== 'DONE';
  const submit = async (e: Event) => {
    e.preventDefault();
    if (running) return;
    const chosen = files.filter(isImage);
    if (!chosen.length) return setError('Choose a photo of a card (and its back, for a full grade).');
    // a third photo was dropped without a word, and the second taken for the first card's back
    if (endpoint === 'grade' && chosen.length > 2) return setError(`A full grade is for one card: the photo of its front, and of its back if you have one (${chosen.length} chosen). For one result per photo, choose Centering only or Condition only.`);
    if (chosen.length > 10) return setError(`At most 10 photos a request (${chosen.length} chosen).`);
    const images = chosen;
    setError(null);
    setRequest(null);
    try {
      // Grading measures margins in pixels: the photo goes as taken, not scaled down.
      const prepared = await Promise.all(images.map((f) => prepareImage(f, 0)));
      const records = prepared.map((p, i) => ({ _id: p.name, _base64: p.base64, ...(endpoint === 'grade' && prepared.length === 2 ? { side: i === 0 ? 'front' : 'back' } : {}) }));
      const submitted = await call<AsyncRequest>('POST', '/account/v2/request/', { body: { type: 'card-grader', endpoint, records } });
      const now = Date.now();
      setStarted(now);
      setStatus(submitted.status);
      follow(submitted.id, now);
    } catch (err) {
      setError(err);
    }
  };
  const open = async (id: string) => {
    setError(null);
    try {
      const r = await call<AsyncRequest>('GET', `/account/v2/request/${id}`);
      // its time is the request's own, from its submission: an opened request said "DONE · 0.0 s", or the time of the
      // one graded before it (h312)
      const since = Date.parse(r.created) || Date.now();
      setStarted(since);
      setElapsed(r.modified && r.status === 'DONE' ? Math.max(0, (Date.parse(r.modified) || since) - since) : Date.now() - since);
      setStatus(r.status);
      if (r.status === 'DONE') setRequest(r);
      else follow(id, since);
    } catch (err) {
      setError(err);
    }
  };

  // A result's pictures are signed links that last an hour (LOUPE_MEDIA_LINK_TTL_S): one that no longer loads because
  // its link ran out has the request read again for fresh links, at most once a minute (a page left open showed broken
  // pictures until it was reloaded)
  const relinked = useRef(0);
  const linkFailed = (src: string) => {
    const id = request?.id;
    if (!id || !linkExpired(src) || Date.now() - relinked.current < 60_000) return;
    relinked.current = Date.now();
    call<AsyncRequest>('GET', `/account/v2/request/${id}`).then(
      (r) => setRequest((shown) => (shown?.id === r.id ? r : shown)),
      () => undefined,
    );
  };
  const step = status ? steps.indexOf(status as (typeof steps)[number]) : -1;
  const records = (request?.response?.records ?? []) as Rec[];
  return (
    <section aria-labelledby="grading-title">
      <h1 id="grading-title">Grading</h1>
      <form class="panel" onSubmit={submit}>
        <div class="row">
          {/* what to measure, in words; the API's endpoint names are the options' values (h326: "Endpoint") */}
          <label>
            What to measure
            <select value={endpoint} onChange={(e) => setEndpoint((e.target as HTMLSelectElement).value)}>
              <option value="grade">Full grade (front, optional back)</option>
              <option value="centering">Centering only</option>
              <option value="condition">Condition only</option>
            </select>
          </label>
        </div>
        <DropZone label={endpoint === 'grade' ? 'Photo of the front (then the back, optional)' : 'Photos of cards'} multiple onFiles={(f) => setFiles(f)}>
          {files.length ? <p class="hint">{endpoint === 'grade' && files.length === 2 ? `front: ${files[0]!.name}, back: ${files[1]!.name}` : files.map((f) => f.name).join(', ')}</p> : null}
        </DropZone>
        {/* aria-disabled while a request runs: a disabled button dropped the focus to the page's start (h84) */}
        <button type="submit" disabled={!files.length} aria-disabled={running}>
          Grade (1 credit a photo)
        </button>
      </form>
      <ErrorBox error={error} />
      {status ? (
        <div class="progress">
          <ol class="steps">
            {steps.map((s, i) => (
              <li key={s} class={i < step ? 'done' : i === step ? 'current' : ''} aria-current={i === step ? 'step' : undefined} title={s}>
                {stepName(s)}
              </li>
            ))}
          </ol>
          <progress max={2} value={Math.max(0, step)} aria-label="Grading progress" />
          <span class="hint" data-testid="grading-status" title={status}>
            {stepName(status)} · {((status === 'DONE' ? elapsed : Math.max(elapsed, Date.now() - started)) / 1000).toFixed(1)} s
          </span>
        </div>
      ) : null}
      {/* one line read out when the state changes, and the grade when it comes (the timer above is not: it repeated every second, h84) */}
      <p class="sr-only" role="status">
        {/* DONE is said once its result is here: "Done. 0 results." came a moment before "Done. 1 result, final 9.6." (h138) */}
        {/* a photo that could not be graded is said as one (h240: "Done. 1 result." for a 422) */}
        {status === 'DONE' && !request ? 'Grading…' : status === 'DONE' ? `Done. ${records.length} ${records.length === 1 ? 'result' : 'results'}${failedCount(records) ? `, ${failedCount(records)} could not be graded` : ''}${request?.response?.grades ? `, final grade ${num(request.response.grades.final, 1)} of 10` : typeof records[0]?.grades?.final === 'number' ? `, final grade ${num(records[0].grades.final, 1)} of 10` : ''}.` : status === 'CREATED' ? 'Sent, waiting its turn.' : status === 'PROCESSING' ? 'Grading…' : status ? `${stepName(status)}.` : ''}
      </p>
      {request?.response?.grades ? (
        <p>
          Overall: final grade {num(request.response.grades.final, 1)} of 10{request.response.grades.condition ? `, ${String(request.response.grades.condition)}` : ''}
        </p>
      ) : null}
      {records.map((r, i) => (
        <GradeRecord key={i} rec={r} onImageError={linkFailed} />
      ))}
      <RecentRequests
        type="card-grader"
        label="Recent grading requests"
        refresh={recentRead}
        stateName={stepName}
        outcome={(r) => (r.response ? gradingOutcome(r.response.records, r.response.grades) : '')}
        picture={(r) => gradingPicture(r.response?.records ?? [])}
        onOpen={(id) => void open(id)}
      />
    </section>
  );
}
