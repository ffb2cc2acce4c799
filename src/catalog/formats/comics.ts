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
  const issue = f.text('issue_number');
  const variant = f.text('variant');
  const characters = f.value.marvel_character_ids;
  if (typeof characters === 'string') fields.marvel_character_ids = characters.split(/[;|,]/).map((s) => s.trim()).filter(Boolean);
  return {
    // a shop's title without its issue (`Spawn`, issues #1 and #12A): the issue and variant make the key (h136: the second
    // was refused as a duplicate); a title that prints its issue (`Spawn (1992) #12A`, Marvel's) is keyed as before
    key: id !== null ? id : `title:${title}${!title.includes('#') && start !== null ? ` (${start})` : ''}${!title.includes('#') && issue ? ` #${issue}` : ''}${!title.includes('#') && variant ? ` [${variant}]` : ''}${coverName ? `|${coverName}` : ''}`,
    name: f.text('series') ?? title,
    setCode: null,
    setName: f.text('publisher'),
    number: issue,
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
    let columns: Map<string, string> | undefined;
    for await (const r of readCsvRecords(file, bytes)) {
      const at = { file, line: r.line, index: null, path: null };
      columns ??= comicColumns(Object.keys(r.value));
      const value = Object.fromEntries(Object.entries(r.value).map(([k, v]) => [columns!.get(k) ?? k, columns!.get(k) === 'publication_year' && k !== 'publication_year' ? (/\b(1[89][0-9]{2}|20[0-9]{2})\b/.exec(v)?.[1] ?? v) : v]));
      if (records === 0 && !('title' in value)) fail({ ...at, line: 1 }, `the header lacks "title" (a comics CSV has title, and may have series, issue_number, publisher, series_start_year, publication_year, variant, cover_url, marvel_comic_id; in any case, and "Issue #", "Vol Year" or "Cover Date" as shops name them)`);
      add(value, at);
    }
  }
  return { format: 'comics', rank: 2, sets: [], cards, records };
}

/** A shop's names for the comics columns (folded: lower case, runs of spaces, `_`, `#`, `.` and `-` as one space). */
const COLUMN_NAMES: Record<string, string> = {
  title: 'title',
  series: 'series',
  'series name': 'series',
  'series title': 'series',
  'issue number': 'issue_number',
  issue: 'issue_number',
  'issue no': 'issue_number',
  publisher: 'publisher',
  'series start year': 'series_start_year',
  'vol year': 'series_start_year',
  'volume year': 'series_start_year',
  'volume start year': 'series_start_year',
  'start year': 'series_start_year',
  'publication year': 'publication_year',
  year: 'publication_year',
  'cover year': 'publication_year',
  'cover date': 'publication_year',
  variant: 'variant',
  'cover url': 'cover_url',
  'marvel comic id': 'marvel_comic_id',
};

/**
 * A CSV header's columns named as this reader takes them: in any case, and as shops write them
 * (`Title`, `Issue #`, `Vol Year`, `Cover Date`: h136's shop file was refused for `Title`). A column
 * already named exactly is never taken by another; unknown columns keep their names (kept as fields).
 */
function comicColumns(header: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set(header.filter((h) => Object.values(COLUMN_NAMES).includes(h)));
  for (const h of header) {
    const canonical = COLUMN_NAMES[h.toLowerCase().replace(/[\s_#.-]+/g, ' ').trim()];
    if (!canonical || h === canonical || taken.has(canonical)) continue;
    taken.add(canonical);
    out.set(h, canonical);
  }
  return out;
}
