import { describe, expect, it } from 'vitest';
import { arrowTarget, gridWindow } from './virtual-grid.ts';

describe('gridWindow', () => {
  it('draws only the rows in view plus the overscan', () => {
    const w = gridWindow(5000, 1000, 0, 600, 200, 300, 2);
    expect(w.columns).toBe(5);
    expect(w.rowCount).toBe(1000);
    expect(w.totalHeight).toBe(300_000);
    expect(w.start).toBe(0);
    expect(w.end).toBe(4 * 5); // rows 0–1 in view, two more below
    const mid = gridWindow(5000, 1000, 150_000, 600, 200, 300, 2);
    expect(mid.start).toBe(498 * 5);
    expect(mid.end).toBe(504 * 5);
    expect(mid.offset).toBe(498 * 300);
  });

  it('keeps drawing a kept item scrolled out of view, and the rows between, up to KEEP_ROWS away (h166)', () => {
    // the focused card at index 3 (row 0), the view scrolled to row 20
    const w = gridWindow(5000, 1000, 6000, 600, 200, 300, 2, [3]);
    expect(w.start).toBe(0);
    expect(w.end).toBe(24 * 5);
    expect(w.offset).toBe(0);
    // below the view too
    expect(gridWindow(5000, 1000, 0, 600, 200, 300, 2, [200])).toMatchObject({ start: 0, end: 41 * 5 });
    // too far: the window as without it
    expect(gridWindow(5000, 1000, 150_000, 600, 200, 300, 2, [3])).toMatchObject({ start: 498 * 5, end: 504 * 5 });
  });

  it('stops at the last item and keeps one column on a narrow phone', () => {
    const w = gridWindow(7, 150, 10_000, 800, 170, 300);
    expect(w.columns).toBe(1);
    expect(w.end).toBe(7);
    expect(w.start).toBeLessThanOrEqual(w.end);
    expect(gridWindow(0, 1000, 0, 600, 200, 300)).toMatchObject({ start: 0, end: 0, totalHeight: 0 });
  });
});

describe('arrowTarget (one tab stop for the grid, arrows between its cards)', () => {
  it('moves by one across rows and by a row up and down, stopping at the ends', () => {
    // 12 cards in 5 columns: rows 0-4, 5-9, 10-11
    expect(arrowTarget('ArrowRight', 4, 5, 12)).toBe(5);
    expect(arrowTarget('ArrowLeft', 5, 5, 12)).toBe(4);
    expect(arrowTarget('ArrowLeft', 0, 5, 12)).toBe(0);
    expect(arrowTarget('ArrowRight', 11, 5, 12)).toBe(11);
    expect(arrowTarget('ArrowDown', 2, 5, 12)).toBe(7);
    expect(arrowTarget('ArrowUp', 7, 5, 12)).toBe(2);
    expect(arrowTarget('ArrowUp', 3, 5, 12)).toBe(3);
    // down into the shorter last row: its last card; from the last row: nowhere
    expect(arrowTarget('ArrowDown', 8, 5, 12)).toBe(11);
    expect(arrowTarget('ArrowDown', 11, 5, 12)).toBe(11);
    expect(arrowTarget('PageDown', 2, 5, 12)).toBeUndefined();
    expect(arrowTarget('ArrowDown', 0, 5, 0)).toBeUndefined();
  });
});
