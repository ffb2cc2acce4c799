import { Fields, RowSet, fail, type CardRow, type ReadContext, type ReadResult, type RecordPlace } from '../catalog-rows.ts';
import { looksLikeJson, readCsvRecords, readJsonRecords } from '../record-stream.ts';

/**
 * Yu-Gi-Oh! catalogs: yaml-yugi's `cards.json` (a card with its English printings under
 * `sets_en` as `[print code, set name, [rarities] or null]`) or its flattened `printings_en.csv`
 * (`set_number,set_name,rarity,password,konami_id,name`). What a seller holds is a printing, so a
 * row is one print code in one rarity of one set. The same code and rarity recur in reprint sets
 * (`LOB-EN014` in the 25th Anniversary Edition) and, for unreleased cards, the code is a
 * placeholder shared by many cards (`MAMS-EN???`): the key therefore names the set and the card
 * too, `code|rarity|set name|card`, the card being its password, else its Konami id, else its name.
 * A placeholder code is kept as printed but is never a number to match (flag `placeholder_code`).
 * Japanese printings (`sets_ja`) are not rows; a card with no English printing is one row
 * without a number (flag `no_english_printing`), so its name can still be found.
 */

const cardIdOf = (password: string | null, konamiId: string | null, name: string) => password ?? (konamiId ? `konami-${konamiId}` : `name-${name}`);

function printingRow(card: { name: string; cardId: string; fields: Record<string, unknown> }, code: string | null, setName: string, rarity: string | null): CardRow {
  const flags: string[] = [];
  if (code === null) flags.push('no_print_code');
  else if (code.includes('?')) flags.push('placeholder_code');
  const dash = code?.indexOf('-') ?? -1;
  return {
    key: `${code ?? ''}|${rarity ?? ''}|${setName}|${card.cardId}`,
    name: card.name,
    setCode: code !== null && dash > 0 ? code.slice(0, dash) : null,
    setName,
    number: code,
    rarity,
    year: null,
    fields: card.fields,
    links: {},
    aliases: [],
    flags,
  };
}

/** Fields only a yaml-yugi card has; every card of its cards.json has several (all have `card_type` and `yugipedia_page_id`). */
const YAML_YUGI_FIELDS = ['sets_en', 'sets_ja', 'password', 'konami_id', 'card_type', 'yugipedia_page_id'];

/** Another game's card, told by a field its source always writes, for the message that refuses it. */
function otherGame(f: Fields): string | null {
  if (f.value.object === 'card' || f.has('uuid')) return 'a Magic card (--kind mtg)';
  if (f.has('supertype') || (f.has('set') && f.has('number') && f.has('id'))) return 'a Pokémon card (--kind pokemon)';
  if (f.has('card_sets')) return "a YGOPRODeck card, whose printings (card_sets) this importer does not read: yaml-yugi's cards.json or printings_en.csv is";
  return null;
}

export function yugiohCardRows(f: Fields): CardRow[] {
  // any array of objects with a "name" read as Yu-Gi-Oh! cards without printings: a Scryfall file under --kind yugioh was 2 cards, exit 0 (h339)
  if (!YAML_YUGI_FIELDS.some((k) => k in f.value)) {
    const other = otherGame(f);
    fail(f.at, `is no yaml-yugi card: it has none of ${YAML_YUGI_FIELDS.map((k) => `"${k}"`).join(', ')}${other ? ` (it looks like ${other})` : ' (a file of another --kind?)'}`);
  }
  const name = f.need('name');
  const password = f.text('password');
  const card = { name, cardId: cardIdOf(password, f.text('konami_id'), name), fields: f.rest('name', 'sets_en', 'sets_ja', 'file') };
  const sets = f.value.sets_en;
  if (sets === undefined || sets === null || (Array.isArray(sets) && sets.length === 0)) {
    return [{ key: `card|${card.cardId}`, name, setCode: null, setName: null, number: null, rarity: null, year: null, fields: card.fields, links: {}, aliases: [], flags: ['no_english_printing'] }];
  }
  if (!Array.isArray(sets)) fail(f.at, '"sets_en" must be a list of [print code, set name, [rarities] or null]');
  const rows: CardRow[] = [];
  sets.forEach((entry: unknown, i: number) => {
    const bad = () => fail(f.at, `"sets_en" entry ${i + 1} must be [print code, set name, [rarities] or null], not ${JSON.stringify(entry)?.slice(0, 80)}`);
    if (!Array.isArray(entry) || entry.length < 2 || typeof entry[0] !== 'string' || typeof entry[1] !== 'string' || entry[1].trim() === '') bad();
    const [code, setName, rarities] = entry as [string, string, unknown];
    if (rarities !== null && rarities !== undefined && (!Array.isArray(rarities) || rarities.some((r) => typeof r !== 'string'))) bad();
    const list = (rarities as string[] | null | undefined)?.length ? (rarities as string[]) : [null];
    for (const rarity of list) rows.push(printingRow(card, code.trim() || null, setName.trim(), rarity?.trim() || null));
  });
  return rows;
}

const CSV_COLUMNS = ['set_number', 'set_name', 'rarity', 'name'];

export function yugiohPrintingRow(f: Fields): CardRow {
  const name = f.need('name');
  const password = f.integer('password');
  const konamiId = f.integer('konami_id');
  const fields: Record<string, unknown> = {};
  if (password !== null) fields.password = password;
  if (konamiId !== null) fields.konami_id = konamiId;
  return printingRow({ name, cardId: cardIdOf(password === null ? null : String(password), konamiId === null ? null : String(konamiId), name), fields }, f.text('set_number'), f.need('set_name'), f.text('rarity'));
}

export async function readYugioh(file: string, ctx: ReadContext): Promise<ReadResult> {
  const cards = new RowSet();
  let records = 0;
  const bytes = (read: number, size: number) => ctx.onBytes(file, read, size);
  const add = (row: CardRow, at: RecordPlace) => {
    if (row.flags.includes('placeholder_code')) ctx.remarks.add('{n} printings have a placeholder print code (kept, never matched as a number)', `${row.number} on line ${at.line}`);
    if (row.flags.includes('no_print_code')) ctx.remarks.add('{n} printings have no print code', `"${row.setName}" on line ${at.line}`);
    cards.add(row, at);
  };
  if (await looksLikeJson(file)) {
    for await (const r of readJsonRecords(file, bytes)) {
      const at = { file, line: r.line, index: r.index, path: r.path };
      if (r.path !== null) fail(at, 'a Yu-Gi-Oh! cards file is a JSON array of cards');
      for (const row of yugiohCardRows(Fields.of(r.value, at))) add(row, at);
      records++;
      ctx.onRecord(file);
    }
    return { format: 'yugioh', rank: 2, sets: [], cards, records };
  }
  for await (const r of readCsvRecords(file, bytes)) {
    const at = { file, line: r.line, index: null, path: null };
    if (records === 0) {
      const missing = CSV_COLUMNS.filter((c) => !(c in r.value));
      if (missing.length) fail({ ...at, line: 1 }, `the header lacks ${missing.map((c) => `"${c}"`).join(', ')} (a printings CSV has ${CSV_COLUMNS.join(', ')}, password, konami_id)`);
    }
    add(yugiohPrintingRow(new Fields(r.value, at)), at);
    records++;
    ctx.onRecord(file);
  }
  // The CSV is the JSON flattened with fewer fields: its rows never replace the JSON's.
  return { format: 'yugioh-csv', rank: 1, sets: [], cards, records };
}
