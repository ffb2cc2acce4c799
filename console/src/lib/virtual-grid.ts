/** Geometry of a grid that draws only the rows in view: a 5,000-card session stays a few dozen elements. */
export interface GridWindow {
  columns: number;
  rowCount: number;
  /** First and last (exclusive) item index to draw. */
  start: number;
  end: number;
  /** Pixels above the first drawn row. */
  offset: number;
  totalHeight: number;
}

/** How many rows beyond the view a kept item may draw with it (a card with the keyboard's focus, the card being edited). */
export const KEEP_ROWS = 60;

/**
 * `keep`: indices of items to draw even when out of view (the focused card, the edited one), the rows between drawn
 * too, while they are at most {@link KEEP_ROWS} beyond the view: a card scrolled away with the keyboard on it was taken
 * out of the page, and the focus fell to the page's start (h166).
 */
export function gridWindow(itemCount: number, width: number, scrollTop: number, viewport: number, cellWidth: number, rowHeight: number, overscanRows = 2, keep: readonly number[] = []): GridWindow {
  const columns = Math.max(1, Math.floor(width / cellWidth));
  const rowCount = Math.ceil(itemCount / columns);
  let firstRow = Math.max(0, Math.floor(scrollTop / rowHeight) - overscanRows);
  let lastRow = Math.min(rowCount, Math.ceil((scrollTop + viewport) / rowHeight) + overscanRows);
  for (const index of keep) {
    if (index < 0 || index >= itemCount) continue;
    const row = Math.floor(index / columns);
    if (row < firstRow && firstRow - row <= KEEP_ROWS) firstRow = row;
    if (row >= lastRow && row - lastRow < KEEP_ROWS) lastRow = row + 1;
  }
  return {
    columns,
    rowCount,
    start: Math.min(itemCount, firstRow * columns),
    end: Math.min(itemCount, Math.max(firstRow, lastRow) * columns),
    offset: firstRow * rowHeight,
    totalHeight: rowCount * rowHeight,
  };
}

/**
 * The item an arrow key moves the keyboard to in a grid of `columns`: left and right by one (across rows), up and down
 * by a row, stopping at the ends. `undefined` for any other key, which keeps its own meaning (Page Down, Home and End
 * scroll the grid).
 */
export function arrowTarget(key: string, index: number, columns: number, itemCount: number): number | undefined {
  const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -columns, ArrowDown: columns }[key];
  if (step === undefined || itemCount === 0) return undefined;
  const next = index + step;
  // down from the last full row to a shorter one: its last card, as a spreadsheet does
  if (step === columns && next >= itemCount) return Math.floor(index / columns) < Math.floor((itemCount - 1) / columns) ? itemCount - 1 : index;
  return Math.min(itemCount - 1, Math.max(0, next < 0 ? index : next));
}
