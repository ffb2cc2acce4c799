import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { Shell } from '../app.tsx';
import { DropZone, ErrorBox } from '../components/common.tsx';
import { isImage, prepareImage } from '../lib/images.ts';

/** The API's most records in one remove_duplicates call (docs/api-decisions.md). */
const maxRecords = 100;

interface Out {
  _id: string;
  _status?: { code: number; text: string };
  removed_records?: { _id: string; _distance?: number }[];
}

export function MatchingPage({ shell }: { shell: Shell }) {
  const [range, setRange] = useState(10);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [groups, setGroups] = useState<Out[] | null>(null);
  const [previews, setPreviews] = useState<Map<string, string>>(new Map());
  const [note, setNote] = useState<string | null>(null);
  // the photos last compared: moving the slider groups them again without choosing them again
  const [lastFiles, setLastFiles] = useState<File[]>([]);
  // the range the groups shown were made with (the slider may have moved since)
  const [shownRange, setShownRange] = useState<number | null>(null);
  // Regrouping after the slider rests: arrow keys change it on every press (54 presses sent 7 paid calls, and the
  // groups shown were another value's: changes while a call ran were dropped, h84). The latest value waits its turn.
  const wanted = useRef<number | null>(null);
  const rest = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const running = useRef(false);
  const filesRef = useRef<File[]>([]);
  // leaving the page sends no further call: neither the one resting nor one waiting behind a call under way (h89, h90)
  const left = useRef(false);
  useEffect(
    () => () => {
      left.current = true;
      wanted.current = null;
      clearTimeout(rest.current);
    },
    [],
  );
  const regroupSoon = (value: number) => {
    wanted.current = value;
    clearTimeout(rest.current);
    rest.current = setTimeout(() => void regroup(), 500);
  };
  const regroup = async () => {
    if (left.current || running.current || wanted.current === null || !filesRef.current.length) return;
    const value = wanted.current;
    wanted.current = null;
    running.current = true;
    try {
      await run(filesRef.current, value);
    } finally {
      running.current = false;
    }
    if (wanted.current !== null) void regroup();
  };

  const run = async (files: File[], within = range) => {
    let images = files.filter(isImage);
    if (!images.length) return setError('The folder holds no images.');
    setNote(images.length > maxRecords ? `At most ${maxRecords} photos are compared at a time: the first ${maxRecords} of ${images.length} were compared.` : null);
    images = images.slice(0, maxRecords);
    setLastFiles(files);
    filesRef.current = files;
    setBusy(true);
    setError(null);
    try {
      // Hashes are made from a small thumbnail anyway; 512 px keeps a folder of phone photos to a few megabytes.
      const prepared = await Promise.all(images.map((f) => prepareImage(f, 512)));
      const ids = images.map((f) => (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name);
      setPreviews(new Map(ids.map((id, i) => [id, prepared[i]!.preview])));
      const res = await call<{ records: Out[] }>('POST', '/image_matching/v2/remove_duplicates', { acceptMixed: true, body: { records: prepared.map((p, i) => ({ _id: ids[i], _base64: p.base64 })), range: within } });
      setGroups(res.records);
      setShownRange(within);
      shell.creditsChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const dupGroups = (groups ?? []).filter((g) => g.removed_records?.length);
  const failed = (groups ?? []).filter((g) => g._status && g._status.code >= 400);
  return (
    <section aria-labelledby="matching-title">
      <h1 id="matching-title">Image matching</h1>
      <div class="panel">
        <DropZone label="Choose a folder of photos (or drop photos)" multiple folder onFiles={(f) => void run(f)} />
        {/* a phone cannot pick a folder or drop files: single photos too */}
        <label>
          Or choose photos
          <input type="file" accept="image/*" multiple onChange={(e) => void run([...((e.target as HTMLInputElement).files ?? [])])} />
        </label>
        <label>
          {/* the value beside the name, not in it: read twice, and the name changed as the slider moved (h166); one line
              with the name, not ": 10" on a line of its own (a label's parts are its flex items, h312) */}
          {/* in words, the hash's bits in the title: "bits of the 256-bit hash" was a developer's measure (h326) */}
          <span title="The difference is the number of bits in which two photos' 256-bit visual hashes differ">
            Largest difference still counted as a duplicate (0: exact copies only; higher also groups crops and re-shoots)<span aria-hidden="true">: {range}</span>
          </span>
          <input
            type="range"
            min={0}
            max={64}
            value={range}
            onInput={(e) => {
              const value = Number((e.target as HTMLInputElement).value);
              setRange(value);
              if (lastFiles.length) regroupSoon(value);
            }}
          />
        </label>
      </div>
      {busy ? <p class="loading">Comparing…</p> : null}
      {note ? <p class="hint">{note}</p> : null}
      <ErrorBox error={error} />
      {/* on the page before its first words, so a screen reader says the first comparison too (h166; as h138 on Search) */}
      <p aria-live="polite" data-testid="dup-summary">
        {groups ? (
          <>
            {shownRange !== null ? `With differences up to ${shownRange}: ` : ''}
            {groups.length - failed.length} distinct {groups.length - failed.length === 1 ? 'image' : 'images'}, {dupGroups.length} with duplicates{failed.length ? `, ${failed.length} could not be read` : ''}.
          </>
        ) : null}
      </p>
      {dupGroups.map((g) => (
        <figure class="panel dup-group" key={g._id}>
          <figcaption>
            {g._id} and {g.removed_records!.length} {g.removed_records!.length === 1 ? 'duplicate' : 'duplicates'}
          </figcaption>
          <ul class="thumbs">
            {/* the kept image said as kept, and a duplicate's distance even at 0 bits (an exact copy read as the kept one);
                the name under each image is its text, so the image itself says nothing more (h240) */}
            {[{ _id: g._id, kept: true }, ...g.removed_records!.map((r) => ({ ...r, kept: false }))].map((r) => (
              <li key={r._id}>
                <img src={previews.get(r._id)} alt="" />
                <span>
                  {r._id} {r.kept ? '(kept)' : `(difference ${(r as { _distance?: number })._distance ?? 0})`}
                </span>
              </li>
            ))}
          </ul>
        </figure>
      ))}
      {failed.map((g) => (
        <p class="error" key={g._id}>
          {g._id}: {g._status!.text}
        </p>
      ))}
    </section>
  );
}
