import { Fields, RowSet, fail, type CardRow, type ReadContext, type ReadResult, type RecordPlace } from '../catalog-rows.ts';
import { looksLikeJson, readCsvRecords, readJsonRecords } from '../record-stream.ts';

/**
 * Comic issues in the Marvel API subset's fields (`marvel_comic_id`, `title`, `publisher`,
 * `format`, `page_count`, and parsed from the title `series`, `series_start_year`,
 * `series_end_year`, `issue_number`, `variant`, `publication_year`, `cover_url`), as a JSON
 * array or a CSV with those columns. The key is the Marvel id; an issue without one is keyed by
 * its title and, since one title may be several products (two covers of one omnibus), by the
 * file name of its cover image when it has one. `series_start_year` is the volume's start, not
 * the issue's date: it is kept as `origin_date`, and `year` is the publication year or null.
 */
export function comicRow(f: Fields, remarks?: ReadContext['remarks']): CardRow {
  const title = f.need('title');
  const id = f.text('marvel_comic_id');
  const cover = f.text('cover_url');
  const coverName = cover ? /([^/?#]+?)(?:\.[a-z0-9]+)?(?:[?#].*)?$/i.exec(cover)?.[1] : undefined;
  const fields: Record<string, unknown> = { ...f.rest('marvel_comic_id', 'series', 'issue_number', 'publisher', 'publication_year', 'series_start_year'), title };
  const start = f.integer('series_start_year');
  if (start !== null) fields.origin_date = String(start);
  if (id !== null) fields.marvel_comic_id = f.integer('marvel_comic_id') ?? id;
  const year = f.year('publication_year', remarks, fields);
  const characters = f.value.marvel_character_ids;
  if (typeof characters === 'string') fields.marvel_character_ids = characters.split(/[;|,]/).map((s) => s.trim()).filter(Boolean);
  return {
    key: id !== null ? id : `title:${title}${coverName ? `|${coverName}` : ''}`,
    name: f.text('series') ?? title,
    setCode: null,
    setName: f.text('publisher'),
    number: f.text('issue_number'),
    rarity: null,
    year,
    fields,
    links: {},
    aliases: [],
    flags: [],
  };
}

export async function readComics(file: string, ctx: ReadContext): Promise<ReadResult> {
  const cards = new RowSet();
  let records = 0;
  const bytes = (read: number, size: number) => ctx.onBytes(file, read, size);
  const add = (value: unknown, at: RecordPlace) => {
    cards.add(comicRow(Fields.of(value, at), ctx.remarks), at);
    records++;
    ctx.onRecord(file);
  };
  if (await looksLikeJson(file)) {
    for await (const r of readJsonRecords(file, bytes)) {
      const at = { file, line: r.line, index: r.index, path: r.path };
      if (r.path !== null) fail(at, 'a comics file in JSON is an array of issues');
      add(r.value, at);
    }
  } else {
    for await (const r of readCsvRecords(file, bytes)) {
      const at = { file, line: r.line, index: null, path: null };
      if (records === 0 && !('title' in r.value)) fail({ ...at, line: 1 }, 'the header lacks "title"');
      add(r.value, at);
    }
  }
  return { format: 'comics', rank: 2, sets: [], cards, records };
}
