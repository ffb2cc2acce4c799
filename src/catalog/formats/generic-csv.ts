import { Fields, RowSet, fail, type CardRow, type ReadContext, type ReadResult } from '../catalog-rows.ts';
import { readCsvRecords } from '../record-stream.ts';

/** The row columns a mapping can fill; any other target name becomes a field of that name. */
export const MAP_TARGETS = ['key', 'name', 'number', 'set_code', 'set_name', 'rarity', 'year'] as const;

export class ColumnMapError extends Error {}

/**
 * `--map name=Card Name,number=No.,set_code=Set` → target → column. Column names are taken as
 * written (spaces included); a target named twice is an error.
 */
export function parseColumnMap(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const target = eq < 0 ? '' : part.slice(0, eq).trim().toLowerCase();
    const column = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (!/^[a-z][a-z0-9_]*$/.test(target) || column === '') throw new ColumnMapError(`--map takes target=column pairs separated by commas (targets: ${MAP_TARGETS.join(', ')} or a field name), not "${part.trim()}"`);
    if (map.has(target)) throw new ColumnMapError(`--map names "${target}" twice`);
    map.set(target, column);
  }
  return map;
}

/**
 * Any game's catalog as a CSV with a header line: `--map` says which column holds the name,
 * number, set code and so on; a column named like a target (`name`, `number`, …) is taken
 * without being mapped. Every other non-empty column is kept as a field under its own name.
 * Without a `key` column the key is `set_code|number|name`, and two rows with the same key are
 * an error naming both lines.
 */
export async function readGenericCsv(file: string, mapping: ReadonlyMap<string, string>, ctx: ReadContext): Promise<ReadResult> {
  const cards = new RowSet();
  let records = 0;
  let columns: Map<string, string> | null = null;
  for await (const r of readCsvRecords(file, (read, size) => ctx.onBytes(file, read, size))) {
    const at = { file, line: r.line, index: null, path: null };
    if (!columns) {
      const header = Object.keys(r.value);
      columns = new Map(mapping);
      for (const [target, column] of mapping) {
        if (header.includes(column)) continue;
        // typed in one Unicode form, the header written in the other (h181: `Nümmer` NFC against an NFD header)
        const same = header.find((h) => h.normalize('NFC') === column.normalize('NFC'));
        if (same !== undefined) columns.set(target, same);
        else fail({ ...at, line: 1 }, `--map ${target}=${column}: the header has no column "${column}" (it has ${header.map((h) => `"${h}"`).join(', ')})`);
      }
      for (const target of MAP_TARGETS) {
        if (columns.has(target)) continue;
        const same = header.find((h) => h.toLowerCase() === target);
        if (same !== undefined) columns.set(target, same);
      }
      if (!columns.has('name')) fail({ ...at, line: 1 }, `no column holds the card name: map one with --map name=<column> (the header has ${header.map((h) => `"${h}"`).join(', ')})`);
    }
    const f = new Fields(r.value, at);
    const get = (target: string) => {
      const column = columns!.get(target);
      return column === undefined ? null : f.text(column);
    };
    const name = get('name') ?? fail(at, `the name ("${columns.get('name')}") is empty`);
    const number = get('number');
    const setCode = get('set_code');
    const mapped = new Set(columns.values());
    const fields: Record<string, unknown> = {};
    for (const [target, column] of columns) {
      if ((MAP_TARGETS as readonly string[]).includes(target)) continue;
      const v = f.text(column);
      if (v !== null) fields[target] = v;
    }
    for (const [column, v] of Object.entries(r.value)) if (!mapped.has(column) && v.trim() !== '') fields[column] = v.trim();
    const yearColumn = columns.get('year');
    // any game's own file: a year column that holds other text keeps it (under its own name), with a remark
    const year = yearColumn === undefined ? null : f.year(yearColumn, ctx.remarks, fields, true);
    const row: CardRow = {
      key: get('key') ?? `${setCode ?? ''}|${number ?? ''}|${name}`,
      name,
      setCode,
      setName: get('set_name'),
      number,
      rarity: get('rarity'),
      year,
      fields,
      links: {},
      aliases: [],
      flags: [],
    };
    cards.add(row, at);
    records++;
    ctx.onRecord(file);
  }
  return { format: 'csv', rank: 2, sets: [], cards, records };
}
