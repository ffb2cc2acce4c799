import { ServiceError } from '../errors.ts';
import type { DominantColorsQuery } from '../text-search/color-match.ts';
import { colorNames } from '../../text-search/lexicon/concepts.ts';

/** An item's categories, as an echo shows them. */
export function itemCategories(top: unknown, category: unknown): Record<string, unknown> | undefined {
  const f: Record<string, unknown> = {};
  if (typeof top === 'string') f['Top Category'] = top;
  if (typeof category === 'string') f.Category = category;
  return Object.keys(f).length ? f : undefined;
}

/** The default filter of a fashion or home-decor search (spec rule 5): the query item's categories. */
export function categoryFilter(top: unknown, category: unknown): Record<string, unknown> | undefined {
  // a path Category (`Decor/Clock`) names its top itself: records stored with it and no Top Category are the same kind
  // (h242: a record with both found 3 of 14 clocks, the others sent `Category` alone)
  if (typeof top === 'string' && typeof category === 'string' && category.startsWith(`${top}/`)) return { Category: category };
  return itemCategories(top, category);
}

/**
 * What a client's filter says of the categories: whether it names `Top Category` or `Category`
 * anywhere (then it, not the default filter of rule 5, filters by them: the two ANDed answered
 * nothing where they differed, h141), and the plain values it asks at its top level or in a top-level
 * `$and`, which choose the item of a query photo as categories written on the query record do.
 */
export function filterCategories(filter: Record<string, unknown> | undefined): { named: boolean; top?: string; category?: string } {
  if (!filter) return { named: false };
  const isCategoryKey = (k: string) => k === 'Top Category' || k === 'Category' || k.startsWith('Top Category.') || k.startsWith('Category.');
  const names = (v: unknown): boolean => (Array.isArray(v) ? v.some(names) : v !== null && typeof v === 'object' ? Object.entries(v).some(([k, x]) => isCategoryKey(k) || names(x)) : false);
  const plain = (v: unknown) => (typeof v === 'string' ? v : v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { $eq?: unknown }).$eq === 'string' ? (v as { $eq: string }).$eq : undefined);
  const levels = [filter, ...(Array.isArray(filter.$and) ? (filter.$and as unknown[]).filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x)) : [])];
  const top = levels.map((l) => plain(l['Top Category'])).find((x) => x !== undefined);
  const category = levels.map((l) => plain(l.Category)).find((x) => x !== undefined);
  return { named: names(filter), ...(top !== undefined ? { top } : {}), ...(category !== undefined ? { category } : {}) };
}

/** An item's measured colours as `_tags.Color` entries and as the names `_tags_simple` lists (those over 10 %). */
export function colorTagsOf(colors: readonly { name: string; percentage: number }[]): { Color: { name: string; prob: number }[]; names: string[] } {
  return { Color: colors.map((x) => ({ name: x.name, prob: Math.round(x.percentage) / 100 })), names: colors.filter((x) => x.percentage >= 10).map((x) => x.name) };
}

/** The name of the item a record is stored by (`_objects[0].name`), which the server's tags begin with. */
const storedItemName = (data: Record<string, unknown>): unknown => (Array.isArray(data._objects) ? (data._objects[0] as { name?: unknown } | undefined)?.name : undefined);
const isPaletteName = (x: unknown) => (colorNames as readonly unknown[]).includes(x);

/**
 * Whether a record's `_tags_simple` is the one the server made with `extract_tags` (the item's
 * name, then colour names from its `_tags`), not one its client wrote. Beside a `_tags` of the
 * client's own (kept as sent), the server's is the stored item's name, then palette colour names.
 */
export function serverTagsSimple(data: Record<string, unknown>): boolean {
  const simple = data._tags_simple;
  if (!Array.isArray(simple)) return false;
  const tags = data._tags as { Item?: { name?: unknown }[]; Color?: { name?: unknown }[] } | undefined;
  if (tags && typeof tags === 'object' && Array.isArray(tags.Item)) {
    const colours = new Set((Array.isArray(tags.Color) ? tags.Color : []).map((x) => x?.name));
    if (simple[0] === tags.Item[0]?.name && simple.slice(1).every((x) => colours.has(x))) return true;
  }
  return simple[0] !== undefined && simple[0] === storedItemName(data) && simple.slice(1).every(isPaletteName);
}

/**
 * Whether a record's `_tags` is the map the server made with `extract_tags` (no names but `Top Category`, `Category`,
 * `Item` and `Color`, its `Item` the stored item's), not one its client wrote: a client's is kept as sent, through new
 * images and the flag turned off, as its `_tags_simple` is (rule 3).
 */
export function serverTags(data: Record<string, unknown>): boolean {
  const tags = data._tags as Record<string, unknown> | undefined;
  if (!tags || typeof tags !== 'object' || Array.isArray(tags)) return false;
  const item = tags.Item as { name?: unknown }[] | undefined;
  return Object.keys(tags).every((k) => k === 'Top Category' || k === 'Category' || k === 'Item' || k === 'Color') && Array.isArray(item) && item.length === 1 && item[0]?.name === storedItemName(data) && Array.isArray(tags.Color);
}

/**
 * Whether a record's `_dominant_colors` is the one the server measured with `extract_colors` (the text-search shape with
 * palette names and hex beside it), not one its client wrote, which is kept as sent.
 */
export function serverColors(data: Record<string, unknown>): boolean {
  const v = data._dominant_colors as Record<string, unknown> | undefined;
  if (!v || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).length !== 4) return false;
  const { luv_colors: luv, percentages, names, colors } = v;
  const sameLength = (x: unknown): x is unknown[] => Array.isArray(x) && Array.isArray(luv) && x.length === luv.length;
  return sameLength(percentages) && sameLength(names) && sameLength(colors) && names.every(isPaletteName) && colors.every((x) => typeof x === 'string' && /^#[0-9a-f]{6}$/.test(x));
}

/** A field a record sends with a value (null removes a field, and is no value). */
export const sentValue = (record: Record<string, unknown>, field: string): boolean => record[field] !== undefined && record[field] !== null;

/** What each extract flag stores, each kept as sent when the record gives it. */
export const flagOutputs = { extract_colors: ['_dominant_colors'], extract_tags: ['_tags', '_tags_simple'] } as const;

/** Whether a record gives every field a flag would store, so the flag has nothing to make (nor to bill, nor to read the image for). */
export const suppliesAll = (record: Record<string, unknown>, flag: keyof typeof flagOutputs): boolean => flagOutputs[flag].every((f) => sentValue(record, f));

/** A client's item box (rule 7): four finite numbers, min < max, at least 8 px each way; or why not. */
export function parsedBox(value: unknown, where: string): [number, number, number, number] | string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length !== 4 || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) return `${where} must be [xmin, ymin, xmax, ymax], four numbers in pixels`;
  const raw = value as [number, number, number, number];
  const [x0, y0, x1, y1] = raw.map((x) => Math.round(Math.max(0, x))) as [number, number, number, number];
  // a well-formed box left of or above the image keeps nothing once clipped: said so, not that its corners are in the
  // wrong order (h328: [-500, -500, -10, -10] was told xmin < xmax)
  const offImage = raw[2] - raw[0] >= 8 && raw[3] - raw[1] >= 8 && (raw[2] < 8 || raw[3] < 8);
  if (x1 - x0 < 8 || y1 - y0 < 8) return offImage ? `${where} lies outside the image (left of it or above it)` : `${where} must have xmin < xmax and ymin < ymax, at least 8 px apart`;
  return [x0, y0, x1, y1];
}

/** A query's drawn box (rule 7), its problem the request's 400. */
export function drawnBox(value: unknown): [number, number, number, number] | undefined {
  const box = parsedBox(value, 'query_record._objects[0].bound_box');
  if (typeof box === 'string') throw new ServiceError(400, 'invalid_request', `${box}.`);
  return box;
}

/** Why a drawn box cannot be the item of an image of that size (it lies outside), or undefined. */
export function boxOutside(box: [number, number, number, number] | undefined, image: { width: number; height: number }): string | undefined {
  return box && (box[0] >= image.width - 8 || box[1] >= image.height - 8) ? `_objects[0].bound_box lies outside the ${image.width}x${image.height} image` : undefined;
}

/**
 * The box a stored record's own `_objects[0]` draws (checked in recordProblem), or undefined. On an
 * update an object the server made and the client sent back (its `category_source` the detector's or
 * the neighbours', or with the `area` the server adds: a record read and written back with a new
 * image) is no drawing: the detector chooses again. On an insert it is: a shop copies a searched
 * item from a response to store that item (rule 7's copy), and it was stored as another garment.
 */
export function recordBox(record: Record<string, unknown>, copiesDraw: boolean): [number, number, number, number] | undefined {
  const first = Array.isArray(record._objects) ? (record._objects[0] as Record<string, unknown> | undefined) : undefined;
  if (!copiesDraw && serversObject(first)) return undefined;
  const box = first && typeof first === 'object' ? parsedBox(first.bound_box, '_objects[0].bound_box') : undefined;
  return typeof box === 'string' ? undefined : box;
}

/** An object the server made and the client sent back (its `category_source` the detector's or the neighbours', or with the `area` the server adds). */
export function serversObject(o: unknown): boolean {
  const first = o as Record<string, unknown> | undefined;
  return !!first && typeof first === 'object' && (first.category_source === 'detector' || first.category_source === 'neighbours' || first.area !== undefined);
}

/**
 * Why a record's `Top Category` or `Category` cannot be used, or undefined: each a non-empty string
 * when sent. Another type is refused, not read as no category (which would lift the default
 * filter) nor replaced by a prediction; an empty one would be voted onto the records after it.
 */
export function categoryProblem(record: Record<string, unknown> | undefined): string | undefined {
  for (const field of ['Top Category', 'Category']) {
    const v = record?.[field];
    if (v !== undefined && v !== null && (typeof v !== 'string' || v.trim() === '')) return `${field} must be a non-empty string`;
  }
  return undefined;
}

/** `_objects` as the server writes it and a client may send it back: a list of objects. */
export function isObjectList(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.every((o) => o !== null && typeof o === 'object' && !Array.isArray(o));
}

export function checkCategories(where: string, record: Record<string, unknown> | undefined): void {
  const problem = categoryProblem(record);
  if (problem) throw new ServiceError(400, 'invalid_request', `${where}.${problem}.`);
}

/** `[L, u, v, share]` rows as a colour query; undefined when there are none. */
export const queryColors = (rows: number[][]): DominantColorsQuery | undefined => (rows.length ? { luv: rows.map((r) => [r[0]!, r[1]!, r[2]!]), percentages: rows.map((r) => (r[3] ?? 0) * 100) } : undefined);

/** ANDs the default item filter with the client's. */
export const withItemFilter = (filter: Record<string, unknown> | undefined, itemFilter: Record<string, unknown> | undefined) => (itemFilter ? (filter && Object.keys(filter).length ? { $and: [filter, itemFilter] } : itemFilter) : filter);
