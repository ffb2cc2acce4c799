import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, readContext, scratchDir } from '../../../test/helpers/catalogs.ts';
import { CatalogFileError } from '../record-stream.ts';
import { readComics } from './comics.ts';

let files: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  files = await scratchDir();
});
afterAll(() => files.remove());

describe('comics (Marvel subset)', () => {
  it('keys issues by Marvel id; the series is the name, the volume start its origin date, not its year', async () => {
    const read = await readComics(fixture('comics/marvel_comics.json'), readContext());
    expect(read).toMatchObject({ format: 'comics', rank: 2, records: 3 });
    expect([...read.cards.rows.keys()]).toEqual(['100001', '100002', '100003']);
    // A collected edition without parsed fields is named by its title.
    expect(read.cards.rows.get('100001')!.row).toMatchObject({ name: 'Test Ronin (Hardcover)', number: null, setName: 'Marvel', year: null });
    const issue = read.cards.rows.get('100002')!.row;
    expect(issue).toMatchObject({ name: 'Amazing Tester', number: '4', year: null });
    expect(issue.fields).toMatchObject({ title: 'Amazing Tester (2014) #4', origin_date: '2014', marvel_comic_id: 100002, format: 'Comic', page_count: 32 });
    expect(read.cards.rows.get('100003')!.row).toMatchObject({ year: '2015', fields: { variant: 'Variant' } });
  });

  it('keys issues without ids by title, and by cover file when one title is several products', async () => {
    const read = await readComics(fixture('comics/marvel_recent_issues_with_year.json'), readContext());
    expect([...read.cards.rows.keys()]).toEqual(['title:Immortal Tester (2023) #13|aaaa0001', 'title:Tester Omnibus (Hardcover)|aaaa0002', 'title:Tester Omnibus (Hardcover)|aaaa0003']);
    expect(read.cards.rows.get('title:Immortal Tester (2023) #13|aaaa0001')!.row).toMatchObject({ name: 'Immortal Tester', number: '13', year: '2024', fields: { origin_date: '2023' } });
  });

  it('reads a CSV with the same columns, and names a header without a title', async () => {
    const csv = await files.write('comics.csv', 'title,publisher,series,issue_number,series_start_year,publication_year,marvel_character_ids\nTester (2020) #1,Marvel,Tester,1,2020,2020,1;2\n');
    const read = await readComics(csv, readContext());
    expect(read.cards.rows.get('title:Tester (2020) #1')!.row).toMatchObject({ name: 'Tester', number: '1', year: '2020', fields: { marvel_character_ids: ['1', '2'] } });
    const noTitle = await files.write('no-title.csv', 'name,publisher\nX,Marvel\n');
    const err = await readComics(noTitle, readContext()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogFileError);
    expect((err as Error).message).toMatch(/no-title\.csv line 1: the header lacks "title"/);
  });

  it("reads a shop's CSV as it names its columns, in any case, and keys titles without their issue by issue and variant (h136)", async () => {
    const csv = await files.write('shop.csv', 'Title,Issue #,Publisher,Vol Year,Cover Date,Variant,SKU\nSpawn,1,Image,1992,May 1992,,S-1\nSpawn,12A,Image,1992,Jul 1993,Newsstand,S-2\nSpawn,12,Image,1992,Jul 1993,,S-3\n');
    const read = await readComics(csv, readContext());
    expect([...read.cards.rows.keys()]).toEqual(['title:Spawn (1992) #1', 'title:Spawn (1992) #12A [Newsstand]', 'title:Spawn (1992) #12']);
    // two volumes of one series, each its #32 (h143: refused as a duplicate)
    const volumes = await files.write('volumes.csv', 'Title,Issue #,Vol Year,Publisher\nThor,32,1998,Marvel\nThor,32,2020,Marvel\n');
    expect([...(await readComics(volumes, readContext())).cards.rows.keys()]).toEqual(['title:Thor (1998) #32', 'title:Thor (2020) #32']);
    expect(read.cards.rows.get('title:Spawn (1992) #12A [Newsstand]')!.row).toMatchObject({ name: 'Spawn', number: '12A', setName: 'Image', year: '1993', fields: { origin_date: '1992', variant: 'Newsstand', SKU: 'S-2' } });
    // a column named exactly keeps it: "Year" is no publication year beside publication_year
    const both = await files.write('both.csv', 'title,Year,publication_year\nX (2020) #1,1999,2020\n');
    expect((await readComics(both, readContext())).cards.rows.get('title:X (2020) #1')!.row).toMatchObject({ year: '2020', fields: { Year: '1999' } });
  });

  it('stores an issue whose year says it is unknown without a year, keeping the text, with a remark; other text is refused', async () => {
    const csv = await files.write('unknown-year.csv', 'title,publisher,series,issue_number,publication_year\nA (2020) #1,Marvel,A,1,Unknown Publication Year\nB (2020) #2,Marvel,B,2,2021\n');
    const ctx = readContext();
    const read = await readComics(csv, ctx);
    expect(read.cards.rows.get('title:A (2020) #1')!.row).toMatchObject({ year: null, fields: { publication_year: 'Unknown Publication Year' } });
    expect(read.cards.rows.get('title:B (2020) #2')!.row.year).toBe('2021');
    expect(ctx.remarks.list()).toEqual(['1 record gives "publication_year" as no year: stored without a year, the text kept in its fields (first: line 2: "Unknown Publication Year")']);
    const bad = await files.write('bad-year.csv', 'title,publication_year\nC #1,soon\n');
    expect(((await readComics(bad, readContext()).catch((e: unknown) => e)) as Error).message).toMatch(/bad-year\.csv line 2: "publication_year" must be a year \(four digits\), not "soon"/);
  });
});
