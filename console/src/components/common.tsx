import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { messageOf } from '../api.ts';

/** An error said aloud (role alert); `id` lets the field it is about name it (aria-describedby). */
export function ErrorBox({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  return (
    <p class="error" role="alert" id={id}>
      {typeof error === 'string' ? error : messageOf(error)}
    </p>
  );
}

/**
 * A drop target that is also a labelled file picker, so it works by keyboard, by touch (a phone
 * opens its camera or gallery) and by dragging files or a folder onto it.
 */
export function DropZone(props: { label: string; multiple?: boolean; folder?: boolean; accept?: string; onFiles: (files: File[]) => void; children?: ComponentChildren }) {
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const folderProps = props.folder ? { webkitdirectory: true } : {};
  return (
    <div
      class={`drop${over ? ' over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const files = [...(e.dataTransfer?.files ?? [])];
        if (files.length) props.onFiles(files);
      }}
    >
      <label>
        <span>{props.label}</span>
        <input
          ref={input}
          type="file"
          accept={props.accept ?? 'image/*'}
          multiple={props.multiple}
          {...folderProps}
          // emptied as the picker opens, so choosing the same file again (after changing a filter or k) is a change
          // too; not after a choice, where the field then told a screen reader "No file chosen" (h84)
          onClick={(e) => {
            (e.currentTarget as HTMLInputElement).value = '';
          }}
          onChange={(e) => {
            const files = [...((e.currentTarget as HTMLInputElement).files ?? [])];
            if (files.length) props.onFiles(files);
          }}
        />
      </label>
      {props.children}
    </div>
  );
}

export function Stat({ label, value, kind }: { label: string; value: ComponentChildren; kind?: string }) {
  return (
    <div class={kind ? `stat ${kind}` : 'stat'} title={typeof value === 'string' || typeof value === 'number' ? `${label}: ${value}` : undefined}>
      <span class="stat-label">{label}</span>
      <span class="stat-value">{value}</span>
    </div>
  );
}

/** A card's marketplace links (`{site: url}`), opened away from the console. */
export function Links({ links }: { links: unknown }) {
  if (!links || typeof links !== 'object' || !Object.keys(links).length) return null;
  return (
    <ul class="links">
      {Object.entries(links as Record<string, unknown>).map(([site, url]) => (
        <li key={site}>
          {/* a client's link may hold any scheme (the API stores it as sent): only web links are clickable, never javascript: */}
          {typeof url === 'string' && /^https?:\/\//i.test(url) ? (
            <a href={url} target="_blank" rel="noopener noreferrer">
              {site}
            </a>
          ) : (
            <span title={typeof url === 'string' ? url : JSON.stringify(url)}>{site}</span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** A table's column headings; `num` columns are right-aligned. */
export function HeadRow({ columns, num = [] }: { columns: string[]; num?: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th key={c} scope="col" class={num.includes(c) ? 'num' : undefined}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}
