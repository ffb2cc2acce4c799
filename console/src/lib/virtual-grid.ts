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

export function gridWindow(itemCount: number, width: number, scrollTop: number, viewport: number, cellWidth: number, rowHeight: number, overscanRows = 2): GridWindow {
  const columns = Math.max(1, Math.floor(width / cellWidth));
  const rowCount = Math.ceil(itemCount / columns);
  const firstRow = Math.max(0, Math.floor(scrollTop / rowHeight) - overscanRows);
  const lastRow = Math.min(rowCount, Math.ceil((scrollTop + viewport) / rowHeight) + overscanRows);
  return {
    columns,
    rowCount,
    start: Math.min(itemCount, firstRow * columns),
    end: Math.min(itemCount, Math.max(firstRow, lastRow) * columns),
    offset: firstRow * rowHeight,
    totalHeight: rowCount * rowHeight,
  };
}
