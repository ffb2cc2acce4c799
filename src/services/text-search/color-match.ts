import { familyOf, type ColorName } from '../../text-search/lexicon/concepts.ts';
import { deltaE, nameColor as nearestPaletteName } from '../../vision/models/dominant-colors.ts';

/**
 * Stored colours are named again by every colour search that ranks them (up to 1,000 records of 2–5 colours, each
 * against the whole palette: a fifth of a "blue" search's time), and a collection's stored colours are the same from
 * one search to the next, so their names are kept; cleared when full.
 */
const paletteNames = new Map<string, string>();
const paletteNamesKept = 50_000;

function nameColor(luv: ArrayLike<number>): string {
  const key = `${luv[0]},${luv[1]},${luv[2]}`;
  let name = paletteNames.get(key);
  if (name === undefined) {
    name = nearestPaletteName(luv);
    if (paletteNames.size >= paletteNamesKept) paletteNames.clear();
    paletteNames.set(key, name);
  }
  return name;
}

/** Colours as `_dominant_colors` gives them: L*u*v* triples and their shares in percent. */
export interface DominantColorsQuery {
  luv: [number, number, number][];
  percentages: number[];
}

/**
 * A stored whole-image colour `[L, u, v, share, 1]` is one of the image with its backdrop at half
 * weight (seen-tokens.ts `scene`), which colour words rank by; `[L, u, v, share]` ones have the
 * backdrop dropped, which `_dominant_colors` compares with. A row stored before 2026-11-28 has only
 * the latter, and both read it.
 */
export const SCENE = 1;

/**
 * Colours within this ΔE*uv of a query colour count as it, and so do colours of the query colour's palette name (the
 * server names colours by their nearest palette colour: on a 5-step sRGB grid 73 % of colours lie over 15 from the
 * reference of their own name, so a query of the palette's "rose" found none of four records the server called rose,
 * 17–20 away, h105).
 */
const colorMatchDelta = 15;

/**
 * M of docs/api-decisions.md: how much of the query's colour mix the record holds, 0–1. Stored
 * colours are `[L, u, v, share 0–1]`.
 */
export function colorMatch(colors: DominantColorsQuery, stored: readonly number[][]): number {
  // a query's colours are an item's or a photo's without its backdrop: compare like with like
  stored = stored.filter((s) => s[4] !== SCENE);
  let matched = 0;
  let total = 0;
  const names = stored.map((s) => nameColor(s));
  colors.luv.forEach((luv, i) => {
    const p = colors.percentages[i]! / 100;
    total += p;
    const name = nameColor(luv);
    const share = stored.filter((s, k) => deltaE(luv, s) <= colorMatchDelta || names[k] === name).reduce((n, s) => n + (s[3] ?? 0), 0);
    matched += Math.min(p, share);
  });
  return total > 0 ? matched / total : 0;
}

/** The largest |u| or |v| a `_dominant_colors` colour may have: beyond every colour sRGB (or a wider gamut) can show. */
export const luvChromaLimit = 200;

/** The most colours a `_dominant_colors` may hold (a query ranks by its 8 strongest). */
export const maxPaletteColors = 64;

/**
 * What is wrong with a `_dominant_colors` (spec 2: `luv_colors`, 3-number colours, and
 * `percentages`, one number each), as the rest of a sentence after the field's name; nothing when
 * it is absent, null, right, or an empty palette (its percentages left out or not: no colours).
 * Other keys (the server's own `names`, `colors`) are let be. A text query's and a stored record's.
 */
export function dominantColorsProblem(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return ' must be an object with luv_colors and percentages';
  const { luv_colors: luv, percentages } = value as { luv_colors?: unknown; percentages?: unknown };
  if (Array.isArray(luv) && luv.length === 0 && (percentages === undefined || (Array.isArray(percentages) && percentages.length === 0))) return undefined;
  if (!Array.isArray(luv) || luv.length > maxPaletteColors) return `.luv_colors must be an array of at most ${maxPaletteColors} colours, each [L, u, v]`;
  for (const [i, c] of luv.entries()) {
    if (!Array.isArray(c) || c.length !== 3 || !c.every((x) => typeof x === 'number' && Number.isFinite(x))) return `.luv_colors[${i}] must be three finite numbers [L, u, v]`;
    if ((c[0] as number) < 0 || (c[0] as number) > 100) return `.luv_colors[${i}]: L must be 0 to 100`;
    // no colour lies past ±luvChromaLimit (sRGB's reach u −84…176, v −135…108): a u of 1e300 was taken and ranked
    // records by the palette name nearest to it (h311)
    if (Math.abs(c[1] as number) > luvChromaLimit || Math.abs(c[2] as number) > luvChromaLimit) return `.luv_colors[${i}]: u and v must be ${-luvChromaLimit} to ${luvChromaLimit} (CIE L*u*v*)`;
  }
  if (!Array.isArray(percentages) || percentages.length !== luv.length) return '.percentages must be an array with one number per colour of luv_colors';
  for (const [i, p] of percentages.entries()) {
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 100) return `.percentages[${i}] must be a number from 0 to 100`;
  }
  return undefined;
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

/**
 * W of docs/api-decisions.md: how much of a record's image the query's colour words cover, 0–1,
 * the mean over the words. A family word ("grey") counts every shade of its family, a shade
 * ("navy") itself fully and the rest of its family by half, as the query's codes weigh them.
 * Stored colours are `[L, u, v, share 0–1]`, named again with the palette that indexed them.
 *
 * The scene's colours (backdrop at half weight) are at most five: a colour of the subject that the
 * backdrop's own shades crowd out of them (a navy plane on grass, a white ball on a lawn) was in the
 * subject's colours, which gave the record the word's code, and had no share here: it came last, at
 * 100, the distance of no colour at all (h281). Such a word counts the subject's share of it, but no
 * more than the scene's smallest colour, as a colour merged away there covered less than that.
 */
export function colorWordShare(words: readonly ColorName[], stored: readonly number[][]): number {
  if (!words.length) return 0;
  const named = (list: readonly number[][]) => list.map((s) => ({ name: nameColor(s) as ColorName, share: s[3] ?? 0 }));
  const scene = named(stored.filter((s) => s[4] === SCENE));
  const subject = named(stored.filter((s) => s[4] !== SCENE));
  const shareIn = (word: ColorName, colours: readonly { name: ColorName; share: number }[]) => {
    const family = familyOf[word];
    let share = 0;
    for (const c of colours) {
      if (c.name === word || (family === word && familyOf[c.name] === family)) share += c.share;
      else if (familyOf[c.name] === family) share += 0.5 * c.share;
    }
    return Math.min(1, share);
  };
  let sum = 0;
  for (const word of words) {
    if (!scene.length) {
      sum += shareIn(word, subject);
      continue;
    }
    const share = shareIn(word, scene);
    sum += share > 0 ? share : Math.min(shareIn(word, subject), ...scene.map((c) => c.share));
  }
  return sum / words.length;
}
