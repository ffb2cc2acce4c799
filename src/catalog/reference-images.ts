import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Which catalog card each reference image shows (`loupe catalog images`): the folder's files, and
 * what a dataset manifest beside them says of each. A manifest (`manifest.json` in the folder or
 * its parent, the shape of ../shared/datasets) lists `files[]` with `file` (relative to the
 * manifest) and `labels`; without one, the file's name is all there is.
 */

export const MATCH_MODES = ['id', 'number', 'name'] as const;
export type MatchMode = (typeof MATCH_MODES)[number];

/** Image files a folder may hold; anything else is left alone. */
const IMAGE_FILE = /\.(jpe?g|png|webp|gif|tiff?|avif)$/i;

export interface ReferenceFile {
  /** Absolute path. */
  file: string;
  /** The path as reported: relative to the folder given. */
  name: string;
  /** What identifies the card, by match mode: ids to try in order (the manifest's, the file's name, its leading number); null when nothing does. */
  ids: string[];
  number: string | null;
  setCode: string | null;
  cardName: string | null;
}

type Labels = Record<string, unknown>;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);

/** The manifest's labels by absolute file path; empty when there is no manifest or it says nothing of files. */
async function manifestLabels(dir: string): Promise<Map<string, Labels>> {
  const out = new Map<string, Labels>();
  for (const at of [dir, path.dirname(dir)]) {
    let raw: string;
    try {
      raw = await readFile(path.join(at, 'manifest.json'), 'utf8');
    } catch {
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw new ReferenceFolderError(`${path.join(at, 'manifest.json')} is not JSON: ${(err as Error).message}`);
    }
    const files = (parsed as { files?: unknown } | null)?.files;
    if (!Array.isArray(files)) continue;
    for (const f of files as { file?: unknown; labels?: unknown }[]) {
      const name = text(f?.file);
      if (name && f.labels && typeof f.labels === 'object') out.set(path.resolve(at, name), withNested(f.labels as Labels));
    }
    return out;
  }
  return out;
}

/**
 * The labels with those of an object inside them filled in where the top level lacks them: the MTG dataset keeps
 * the collector number and set under `gatherer_metadata` (h183: `--match number` took the file's leading digits,
 * its multiverse id, for the number).
 */
function withNested(labels: Labels): Labels {
  const out: Labels = { ...labels };
  for (const v of Object.values(labels)) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    // the printing's own keys only: a nested `set: {id, name}` names no card (h186)
    for (const k of NESTED_KEYS) if (!(k in out) && k in (v as Labels)) out[k] = (v as Labels)[k];
  }
  return out;
}
const NESTED_KEYS = ['collector_number', 'number', 'set_code'] as const;

export class ReferenceFolderError extends Error {}

/** The name a file carries without its extension and a leading running number (`001_Bulbasaur` → `Bulbasaur`). */
function stemName(stem: string): string {
  return stem.replace(/^\d+(?:[_\s-]+|$)/, '').replace(/[_]+/g, ' ').trim();
}

/** The image files of a folder (not its subfolders), in name order, each with what names its card. */
export async function referenceFiles(dir: string): Promise<ReferenceFile[]> {
  const root = path.resolve(dir);
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (err) {
    throw new ReferenceFolderError(`cannot read the folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const labels = await manifestLabels(root);
  // a link to an image is the image (a folder of references is often made of links to the scans)
  const isImageFile = async (e: (typeof entries)[number]) => IMAGE_FILE.test(e.name) && (e.isFile() || (e.isSymbolicLink() && (await stat(path.join(root, e.name)).catch(() => null))?.isFile() === true));
  const kept = await Promise.all(entries.map(isImageFile));
  return entries
    .filter((_, i) => kept[i])
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const file = path.join(root, name);
      const l = labels.get(file) ?? {};
      const stem = name.replace(/\.[^.]+$/, '');
      // `042_pikachu.jpg`, or the number alone (`42.jpg`)
      const leading = /^(\d+)(?:[_\s-]|$)/.exec(stem)?.[1] ?? null;
      return {
        file,
        name,
        ids: [...new Set([l.pokemontcg_io_id, l.scryfall_id, l.card_id, l.id, l.multiverse_id, stem, leading].map(text).filter((v): v is string => v !== null))],
        number: text(l.collector_number) ?? text(l.number) ?? leading,
        setCode: text(l.set_code),
        cardName: text(l.card_name) ?? text(l.name) ?? (stemName(stem) || null),
      };
    });
}

/**
 * The folder's subfolders that hold image files, with how many, for the error of a folder that holds
 * none: a dataset's own folder keeps its scans in `images/` beside the manifest.
 */
export async function imageSubfolders(dir: string): Promise<{ dir: string; images: number }[]> {
  const root = path.resolve(dir);
  const subs = await readdir(root, { withFileTypes: true }).catch(() => []);
  const out: { dir: string; images: number }[] = [];
  // a link to a folder is the folder, as a link to a scan is the scan (referenceFiles)
  const isFolder = async (e: (typeof subs)[number]) => e.isDirectory() || (e.isSymbolicLink() && (await stat(path.join(root, e.name)).catch(() => null))?.isDirectory() === true);
  for (const s of subs.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!(await isFolder(s))) continue;
    const images = (await readdir(path.join(root, s.name)).catch(() => [] as string[])).filter((f) => IMAGE_FILE.test(f)).length;
    if (images) out.push({ dir: path.join(dir, s.name), images });
  }
  return out;
}
