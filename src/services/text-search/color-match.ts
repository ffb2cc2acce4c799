import { deltaE } from '../../vision/models/dominant-colors.ts';

/** Colours as `_dominant_colors` gives them: L*u*v* triples and their shares in percent. */
export interface DominantColorsQuery {
  luv: [number, number, number][];
  percentages: number[];
}

/** Colours within this ΔE*uv of a query colour count as it (about where two palette names part). */
const colorMatchDelta = 15;

/**
 * M of docs/api-decisions.md: how much of the query's colour mix the record holds, 0–1. Stored
 * colours are `[L, u, v, share 0–1]`.
 */
export function colorMatch(colors: DominantColorsQuery, stored: readonly number[][]): number {
  let matched = 0;
  let total = 0;
  colors.luv.forEach((luv, i) => {
    const p = colors.percentages[i]! / 100;
    total += p;
    const share = stored.filter((s) => deltaE(luv, s) <= colorMatchDelta).reduce((n, s) => n + (s[3] ?? 0), 0);
    matched += Math.min(p, share);
  });
  return total > 0 ? matched / total : 0;
}

/** A stored `_dominant_colors` ({luv_colors, percentages}) as `[L, u, v, share 0–1]` rows; empty when malformed. */
export function storedColors(value: unknown): number[][] {
  const v = value as { luv_colors?: unknown; percentages?: unknown } | null | undefined;
  if (!v || !Array.isArray(v.luv_colors) || !Array.isArray(v.percentages) || v.luv_colors.length !== v.percentages.length) return [];
  const out: number[][] = [];
  v.luv_colors.forEach((luv, i) => {
    const p = (v.percentages as unknown[])[i];
    if (Array.isArray(luv) && luv.length === 3 && luv.every((x) => typeof x === 'number') && typeof p === 'number') out.push([...(luv as number[]), p / 100]);
  });
  return out;
}
