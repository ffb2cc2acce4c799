import { Fields, RowSet, fail, type CardRow, type ReadContext, type ReadResult, type RecordPlace } from '../catalog-rows.ts';
import { looksLikeJson, readCsvRecords, readJsonRecords } from '../record-stream.ts';

const REQUIRED = ['set_name', 'card_number', 'players'];
const COLUMNS = ['year', 'brand', 'set_name', 'subset', 'card_number', 'players', 'teams', 'attributes', 'card_type', 'sport'];

const list = (text: string | null, separator: string) => (text === null ? [] : text.split(separator).map((s) => s.trim()).filter(Boolean));

/**
 * A sport-card checklist (`year,brand,set_name,subset,card_number,players,teams,attributes,
 * card_type,sport`, as the Topps 2022 checklist has it; a JSON array with the same fields is
 * read too). Insert numbers restart at 1 in each subset, so the key is `set|subset|number`.
 * Combo cards list players and teams with " / ", attributes with "; ".
 *
 * The Topps 2022 Series 2 checklist calls its 330 base cards `insert`; a row of subset `base`
 * is a base card whatever `card_type` says, and keeps the given value as `card_type_given`.
 */
export function sportsRow(f: Fields, remarks?: ReadContext['remarks']): CardRow {
  const setName = f.need('set_name');
  const subset = f.text('subset') ?? 'base';
  const number = f.need('card_number');
  let cardType = f.text('card_type');
  const fields: Record<string, unknown> = {
    ...f.rest(...COLUMNS),
    sub_set: subset,
    players: list(f.text('players'), ' / '),
    teams: list(f.text('teams'), ' / '),
    attributes: list(f.text('attributes'), ';'),
  };
  const company = f.text('brand');
  if (company) fields.company = company;
  const sport = f.text('sport');
  if (sport) fields.sport = sport;
  if (subset.toLowerCase() === 'base' && cardType !== null && cardType.toLowerCase() !== 'base') {
    remarks?.add(`{n} rows of subset "base" said card_type "${cardType}": stored as base (card_type_given keeps it)`, `${setName} #${number} on line ${f.at.line}`);
    fields.card_type_given = cardType;
    cardType = 'base';
  }
  if (cardType) fields.card_type = cardType;
  const year = f.year('year', remarks, fields);
  return {
    key: `${setName}|${subset}|${number}`,
    name: f.need('players'),
    setCode: null,
    setName,
    number,
    rarity: null,
    year,
    fields,
    links: {},
    aliases: [],
    flags: [],
  };
}

export async function readSports(file: string, ctx: ReadContext): Promise<ReadResult> {
  const cards = new RowSet();
  let records = 0;
  const bytes = (read: number, size: number) => ctx.onBytes(file, read, size);
  const add = (value: unknown, at: RecordPlace) => {
    cards.add(sportsRow(Fields.of(value, at), ctx.remarks), at);
    records++;
    ctx.onRecord(file);
  };
  if (await looksLikeJson(file)) {
    for await (const r of readJsonRecords(file, bytes)) {
      const at = { file, line: r.line, index: r.index, path: r.path };
      if (r.path !== null) fail(at, 'a checklist in JSON is an array of cards');
      add(r.value, at);
    }
  } else {
    for await (const r of readCsvRecords(file, bytes)) {
      const at = { file, line: r.line, index: null, path: null };
      if (records === 0) {
        const missing = REQUIRED.filter((c) => !(c in r.value));
        if (missing.length) fail({ ...at, line: 1 }, `the header lacks ${missing.map((c) => `"${c}"`).join(', ')} (a checklist has ${COLUMNS.join(', ')})`);
      }
      add(r.value, at);
    }
  }
  return { format: 'sports', rank: 2, sets: [], cards, records };
}
