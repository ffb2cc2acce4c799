import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { money, num } from '../lib/format.ts';
import { arrowTarget, gridWindow } from '../lib/virtual-grid.ts';
import type { Identification } from '../types.ts';

const cellWidth = 172;
const rowHeight = 296;

/**
 * The cards of a session, drawn a screenful at a time: the container scrolls over a spacer as tall
 * as every row, and only the rows in view (and two beyond) exist in the page.
 */
export function CardGrid({ rows, onOpen, selected, onImageError }: { rows: readonly Identification[]; onOpen: (row: Identification) => void; selected: string | null; onImageError?: (src: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 800, height: 600 });
  const [scrollTop, setScrollTop] = useState(0);
  useEffect(() => {
    const el = box.current!;
    const observer = new ResizeObserver(() => setSize({ width: el.clientWidth, height: el.clientHeight }));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  // the card with the keyboard's focus and the one being edited stay in the page when scrolled away (h166)
  const [focused, setFocused] = useState<string | null>(null);
  const keep = [focused, selected].flatMap((id) => (id === null ? [] : [rows.findIndex((r) => r.id === id)]));
  const w = gridWindow(rows.length, size.width, scrollTop, size.height, cellWidth, rowHeight, 2, keep);
  const visible = rows.slice(w.start, w.end);
  // One tab stop for the grid, the arrows between its cards: Tab went through every card drawn before it reached what
  // follows the grid. The stop is the card last focused while it is drawn, else the first card in view.
  const inView = gridWindow(rows.length, size.width, scrollTop, size.height, cellWidth, rowHeight, 0);
  const tabStop = focused !== null && visible.some((r) => r.id === focused) ? focused : rows[inView.start]?.id;
  const moveTo = useRef<string | null>(null);
  const focusCard = (id: string) => {
    const card = box.current?.querySelector<HTMLElement>(`[data-row-id="${CSS.escape(id)}"]`);
    card?.focus({ preventScroll: true });
    // the grid scrolls just enough to show the card, at once (a smooth scroll lagged behind held-down arrows)
    card?.scrollIntoView({ block: 'nearest', behavior: 'instant' });
  };
  // one scrolled too far to keep: the keyboard stays in the grid, not at the page's start
  useLayoutEffect(() => {
    if (moveTo.current !== null) {
      const id = moveTo.current;
      moveTo.current = null;
      focusCard(id);
      return;
    }
    if (focused !== null && !visible.some((r) => r.id === focused) && (document.activeElement === document.body || document.activeElement === null)) box.current?.focus({ preventScroll: true });
  });
  const arrows = (e: KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const id = (e.target as HTMLElement).closest<HTMLElement>('[data-row-id]')?.dataset.rowId;
    const index = id === undefined ? -1 : rows.findIndex((r) => r.id === id);
    if (index < 0) {
      // the keyboard on the grid itself, its card gone (deleted by a live refresh, scrolled out of the drawn rows): an
      // arrow takes it to the grid's Tab stop, where the arrows did nothing until Tab
      if (e.target !== box.current || tabStop === undefined || !e.key.startsWith('Arrow')) return;
      e.preventDefault();
      focusCard(tabStop);
      return;
    }
    const next = arrowTarget(e.key, index, w.columns, rows.length);
    if (next === undefined) return;
    // the arrow moves the keyboard, not the scroll (the grid scrolls to the card it reaches); the card a row away is
    // drawn already, as the focused card's neighbours are
    e.preventDefault();
    if (next === index) return;
    moveTo.current = rows[next]!.id;
    setFocused(rows[next]!.id);
  };
  return (
    <div
      class="grid-scroll"
      tabIndex={-1}
      ref={box}
      onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}
      onFocusIn={(e) => setFocused((e.target as HTMLElement).closest<HTMLElement>('[data-row-id]')?.dataset.rowId ?? null)}
      onKeyDown={arrows}
      role="list"
      aria-label={`${rows.length} cards`}
      aria-description="Arrow keys move between cards"
      data-testid="card-grid"
    >
      <div style={{ height: `${w.totalHeight}px`, position: 'relative' }}>
        <div class="grid-window" style={{ transform: `translateY(${w.offset}px)`, gridTemplateColumns: `repeat(${w.columns}, minmax(0, 1fr))` }}>
          {visible.map((row, i) => (
            <div role="listitem" key={row.id} aria-setsize={rows.length} aria-posinset={w.start + i + 1}>
              <button class={`card${selected === row.id ? ' selected' : ''}`} tabIndex={row.id === tabStop ? 0 : -1} aria-expanded={selected === row.id} aria-controls={selected === row.id ? 'card-editor' : undefined} style={{ height: `${rowHeight - 12}px` }} onClick={() => onOpen(row)} data-event-id={row.event_id} data-row-id={row.id}>
                {row.thumbnail ? <img src={row.thumbnail} alt="" loading="lazy" decoding="async" width={128} height={178} onError={() => onImageError?.(row.thumbnail!)} /> : <span class="no-image" aria-hidden="true">no image</span>}
                {/* written right to left where the name is (Arabic, Hebrew): cut at its end, not its start (h146) */}
                <span class="card-name" dir="auto" title={row.full_name || row.name || undefined}>
                  {row.name || row.full_name || 'Unidentified'}
                </span>
                {/* the number first: it tells printings apart at the counter, and a long set name cut it off (h97); each part
                    isolated, so Arabic-Indic digits do not join an Arabic set name's run and go to its end (h146) */}
                <span class="card-set" title={[row.card_number ? `#${row.card_number}` : '', row.set_name || row.set_code || ''].filter(Boolean).join(' · ') || undefined}>
                  {row.card_number ? (
                    <>
                      <bdi>#{row.card_number}</bdi>
                      {' · '}
                    </>
                  ) : null}
                  <bdi>{row.set_name || row.set_code || '—'}</bdi>
                </span>
                <span class="card-foot">
                  <span class="price">{row.price === null || row.price === undefined ? <span aria-label="no price">—</span> : money(row.price)}</span>
                  {row.grade !== null && row.grade !== undefined ? <span class="grade" title="Final grade, out of 10">
                      <span class="sr-only">grade </span>
                      {num(row.grade, 1)}
                      <span class="sr-only"> of 10</span>
                    </span> : null}
                  {row.sold ? (
                    <span class="tag" title="Sold">
                      sold
                    </span>
                  ) : null}
                  {row.corrected ? (
                    <span class="tag" title="Corrected by a user">
                      edited
                    </span>
                  ) : null}
                  {/* the ones to look at first: recognition was not sure (a shop could not tell them from sure ones in the grid) */}
                  {!row.corrected && row.confidence === 'low' ? (
                    <span class="tag check" title="Recognised with low confidence: check it against the photo">
                      check<span class="sr-only"> (recognised with low confidence)</span>
                    </span>
                  ) : null}
                </span>
              </button>
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
