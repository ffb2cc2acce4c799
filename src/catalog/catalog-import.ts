import { CatalogKindConflict, ImportNotWritten, type CatalogCardInput, type CatalogImportOutcome, type CatalogImportPlan, type CatalogStore, type RowCounts } from '../store/catalog-store.ts';
import { foldedName, foldedNumber, Remarks, type CardRow, type ReadContext, type ReadResult, type SetRow } from './catalog-rows.ts';
import { readComics } from './formats/comics.ts';
import { readGenericCsv } from './formats/generic-csv.ts';
import { readMtg } from './formats/mtg.ts';
import { readPokemon } from './formats/pokemon.ts';
import { readSports } from './formats/sports-csv.ts';
import { readYugioh } from './formats/yugioh.ts';
import { CatalogFileError } from './record-stream.ts';

export const CATALOG_KINDS = ['pokemon', 'mtg', 'yugioh', 'sports', 'comics', 'csv'] as const;
export type CatalogKind = (typeof CATALOG_KINDS)[number];

export const isCatalogKind = (value: string): value is CatalogKind => (CATALOG_KINDS as readonly string[]).includes(value);

/** The files an import reads; which ones a kind takes is in {@link inputsOf}. */
export interface CatalogFiles {
  cards?: string | undefined;
  sets?: string | undefined;
  csv?: string | undefined;
  file?: string | undefined;
}

export interface CatalogImportRequest {
  kind: CatalogKind;
  catalog: string;
  files: CatalogFiles;
  /** `--kind csv`: target → column. */
  map?: ReadonlyMap<string, string> | undefined;
  /** `--remove-missing`: the catalog's cards from this format that the file lacks go, with their prices and reference images. */
  removeMissing?: boolean | undefined;
  /** With `removeMissing`: however many (`--force`). */
  force?: boolean | undefined;
  /** Read and stage as the import does, then answer what it would do (`"dry_run": true`) with nothing written (`--dry-run`). */
  dryRun?: boolean | undefined;
  /**
   * Called with the dry run's answer once the file is staged, before anything is written (and with no lock held): a
   * throw writes nothing (the CLI's question before `--remove-missing` removes cards).
   */
  confirm?: ((planned: CatalogImportResult) => Promise<void>) | undefined;
}

export type ImportProgress =
  | { phase: 'read'; file: string; bytes: number; size: number; records: number }
  | { phase: 'write'; written: number; total: number };

export interface CatalogImportResult {
  /** A dry run's answer: what the import would do, nothing written. */
  dry_run?: true;
  catalog: string;
  kind: CatalogKind;
  /** The shape read: `pokemon`, `mtgjson`, `scryfall`, `mtg-pool`, `yugioh`, `yugioh-csv`, `sports`, `comics`, `csv`. */
  format: string;
  created_catalog: boolean;
  version: number;
  records: number;
  sets: RowCounts & { total: number };
  /**
   * `not_in_file`: cards the catalog holds from this format that the file lacks, kept (an import
   * adds and updates); with `--remove-missing` they are `removed` instead, with their `prices` and
   * reference `images`.
   */
  cards: RowCounts & { total: number; duplicates: number; not_in_file: number; removed: number };
  /**
   * With `--remove-missing`: the prices and reference images of the cards removed; a dry run's also names a few of
   * those cards (`examples`, the first by key).
   */
  removed?: { prices: number; images: number; examples?: { card: string; name: string; number: string | null; set_code: string | null }[] };
  remarks: string[];
  seconds: { read: number; write: number };
}

/** A request naming the wrong files for its kind (the CLI reports it as a usage error). */
export class CatalogRequestError extends Error {}

/** Per kind: the file holding the cards (first given of the flags listed) and whether `--sets` applies. */
const INPUTS: Record<CatalogKind, { main: (keyof CatalogFiles)[]; sets: boolean }> = {
  pokemon: { main: ['cards'], sets: true },
  mtg: { main: ['cards'], sets: true },
  yugioh: { main: ['cards', 'csv'], sets: false },
  sports: { main: ['csv', 'file', 'cards'], sets: false },
  comics: { main: ['file', 'cards', 'csv'], sets: false },
  // --cards as the README's synopsis gives every kind (it was a usage error here alone, h339)
  csv: { main: ['csv', 'file', 'cards'], sets: false },
};

/** The cards file of a request, checked against what its kind takes. */
export function inputsOf(kind: CatalogKind, files: CatalogFiles): { main: string; sets?: string } {
  const spec = INPUTS[kind];
  const given = (Object.keys(files) as (keyof CatalogFiles)[]).filter((k) => files[k] !== undefined && files[k] !== '');
  const flags = (list: readonly string[]) => list.map((k) => `--${k}`).join(' or ');
  const mains = given.filter((k) => spec.main.includes(k));
  if (mains.length === 0) throw new CatalogRequestError(`--kind ${kind} needs ${flags(spec.main)}`);
  if (mains.length > 1) throw new CatalogRequestError(`--kind ${kind} takes one of ${flags(spec.main)}, not ${mains.length}`);
  const other = given.filter((k) => !spec.main.includes(k) && !(k === 'sets' && spec.sets));
  if (other.length) throw new CatalogRequestError(`--kind ${kind} does not take ${flags(other)}`);
  return { main: files[mains[0]!]!, ...(spec.sets && files.sets ? { sets: files.sets } : {}) };
}

function toInput(row: CardRow): CatalogCardInput {
  return { ...row, nameNorm: foldedName(row), numberNorm: foldedNumber(row) };
}

const seconds = (ms: number) => Math.round(ms / 10) / 100;

/**
 * Reads and checks every record of the files first, with nothing written; then stores all rows
 * in one transaction. A malformed file stops at the first bad record with an error naming its
 * line (and record), before the catalog is touched; a failure while writing rolls back. So the
 * catalog is either as it was or fully updated.
 */
export async function importCatalog(store: CatalogStore, request: CatalogImportRequest, onProgress?: (p: ImportProgress) => void): Promise<CatalogImportResult> {
  const { main, sets: setsFile } = inputsOf(request.kind, request.files);
  const existing = await store.get(request.catalog);
  // Fail before reading a large file when the import cannot go into that catalog anyway.
  if (existing && existing.kind !== request.kind) throw new CatalogKindConflict(existing.name, existing.kind);
  const knownSets = new Map<string, SetRow>(existing ? (await store.sets(existing.id)).map((s) => [s.code, s]) : []);
  const remarks = new Remarks();
  // a progress line counts its own file's records (a cards file's lines counted its sets file's too)
  const records = new Map<string, number>();
  const ctx: ReadContext = {
    knownSets,
    remarks,
    onRecord: (file) => {
      records.set(file, (records.get(file) ?? 0) + 1);
    },
    onBytes: (file, bytes, size) => onProgress?.({ phase: 'read', file, bytes, size, records: records.get(file) ?? 0 }),
  };

  const readStart = performance.now();
  let read: ReadResult;
  switch (request.kind) {
    case 'pokemon':
      read = await readPokemon({ cards: main, sets: setsFile }, ctx);
      break;
    case 'mtg':
      read = await readMtg({ cards: main, sets: setsFile }, ctx);
      break;
    case 'yugioh':
      read = await readYugioh(main, ctx);
      break;
    case 'sports':
      read = await readSports(main, ctx);
      break;
    case 'comics':
      read = await readComics(main, ctx);
      break;
    case 'csv':
      read = await readGenericCsv(main, request.map ?? new Map(), ctx);
      break;
  }
  const readMs = performance.now() - readStart;
  // `[]` or `{}` for a cards file made an empty catalog (version 0) that every recognition then searched
  if (read.cards.rows.size === 0) throw new CatalogFileError(main, null, `holds no card records for --kind ${request.kind}${read.records > 0 ? ` (${read.records} records read, none a card)` : ''}`);

  const writeStart = performance.now();
  const rows = read.cards.rows;
  // a plan's answer (`examples` given: before writing) is a dry run's, and the written import's without them
  const answer = (o: Omit<CatalogImportPlan, 'removedExamples'> & { catalog: string }, examples?: CatalogImportPlan['removedExamples']): CatalogImportResult => ({
    ...(examples ? { dry_run: true as const } : {}),
    catalog: o.catalog,
    kind: request.kind,
    format: read.format,
    created_catalog: o.createdCatalog,
    version: o.version,
    records: read.records,
    sets: { ...o.sets, total: o.setCount },
    cards: { ...o.cards, total: o.cardCount, duplicates: read.cards.duplicates, not_in_file: o.notInFile, removed: o.removed.cards },
    ...(request.removeMissing ? { removed: { prices: o.removed.prices, images: o.removed.images, ...(examples ? { examples: examples.map((c) => ({ card: c.key, name: c.name, number: c.number, set_code: c.setCode })) } : {}) } } : {}),
    // said, so a corrected file's dropped rows are not taken for gone (h103: a removed card kept matching)
    remarks: [
      ...remarks.list(),
      ...(o.notInFile ? [`${o.notInFile} card${o.notInFile > 1 ? 's' : ''} of the catalog ${o.notInFile > 1 ? 'are' : 'is'} not in this file and kept: an import adds and updates; \`--remove-missing\` removes the cards its file lacks, with their prices and reference images`] : []),
      ...(o.removed.cards
        ? [`${o.removed.cards} card${o.removed.cards > 1 ? 's' : ''} not in this file ${examples ? 'would be ' : ''}removed (--remove-missing), with ${o.removed.prices} price${o.removed.prices === 1 ? '' : 's'} and ${o.removed.images} reference image${o.removed.images === 1 ? '' : 's'}; session rows that named them keep what they stored`]
        : []),
      // a sports checklist keys a card by its set's name: a set renamed made every card again, which the counts hid (h122)
      ...(o.notInFileAlike
        ? [`${o.notInFileAlike} of the cards not in this file ${o.notInFileAlike > 1 ? 'have' : 'has'} the name and number of a card this file added under another key (a set renamed, or a card's id changed?): both are kept and recognition may tie between them; prices and session rows stay with the old key. To keep only this file's cards: import it again with \`--remove-missing\` (the old keys' prices go with them: import the prices again)`]
        : []),
      ...(examples ? ['a dry run: nothing was written; the catalog, its prices and reference images are as they were'] : []),
    ],
    seconds: { read: seconds(readMs), write: seconds(performance.now() - writeStart) },
  });
  const ask = request.confirm;
  let outcome: CatalogImportOutcome;
  try {
    outcome = await store.applyImport({
      catalog: request.catalog,
      kind: request.kind,
      source: read.format,
      rank: read.rank,
      // keys made of set names and numbers: a set renamed makes every card again (docs/api-decisions.md, h122)
      keyedByName: ['sports', 'comics', 'csv'].includes(request.kind),
      sets: read.sets,
      cards: (function* () {
        for (const { row } of rows.values()) yield toInput(row);
      })(),
      cardCount: rows.size,
      onProgress: (written, total) => onProgress?.({ phase: 'write', written, total }),
      readAs: existing ? { id: existing.id, version: existing.version } : null,
      ...(request.removeMissing ? { removeMissing: true, ...(request.force ? { force: true } : {}) } : {}),
      ...(request.dryRun || ask
        ? {
            beforeWrite: async (plan: CatalogImportPlan) => {
              if (request.dryRun) return false;
              await ask!(answer({ ...plan, catalog: request.catalog }, plan.removedExamples));
              return true;
            },
          }
        : {}),
    });
  } catch (err) {
    if (err instanceof ImportNotWritten) return answer({ ...err.plan, catalog: request.catalog }, err.plan.removedExamples);
    throw err;
  }
  return answer({ ...outcome, catalog: outcome.catalog.name, version: outcome.catalog.version, cardCount: outcome.catalog.cards, setCount: outcome.catalog.sets });
}
