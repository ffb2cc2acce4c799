import { yearOf, type CardRow, type Fields, type RecordPlace, type RowSet, type SetRow } from '../catalog-rows.ts';
import { colorsOf, mtgLinks, mtgSetCode, withSetFlags, type MtgCardReader } from './mtg-common.ts';

export function mtgPoolSet(f: Fields): SetRow {
  return {
    code: mtgSetCode(f.need('code')),
    name: f.need('name'),
    series: null,
    printedTotal: null,
    total: null,
    releaseDate: f.date('releaseDate'),
    extra: f.rest('code', 'name', 'releaseDate'),
  };
}

/**
 * The Scryfall-derived booster-pool supplement: one JSON object `{"sets": [...], "cards": [...]}`
 * (often on one line, so records are named by their place in `cards`). It carries neither
 * multiverse nor TCGplayer ids nor MTGJSON uuids, so its rows rank below MTGJSON's and Scryfall's:
 * a card the catalog already has from those (2,300 cards of The List also appear in MTGJSON as
 * MB1/PLIST printings) keeps its fuller row.
 */
export class MtgPoolCards implements MtgCardReader {
  readonly format = 'mtg-pool';
  readonly rank = 1;
  private readonly setRows: SetRow[] = [];
  private readonly rows: { row: CardRow; at: RecordPlace }[] = [];

  addSet(f: Fields, _at: RecordPlace): void {
    this.setRows.push(mtgPoolSet(f));
  }

  sets(): SetRow[] {
    return this.setRows;
  }

  add(f: Fields, at: RecordPlace): void {
    const setCode = mtgSetCode(f.need('setCode'));
    const number = f.need('number');
    const manaCost = f.text('manaCost');
    const typeLine = f.text('typeLine');
    this.rows.push({
      row: {
        key: f.need('scryfallId'),
        name: f.need('name'),
        setCode,
        setName: f.text('setName'),
        number,
        rarity: f.text('rarity'),
        year: yearOf(f.text('year') ?? f.text('releaseDate')),
        fields: {
          ...f.rest('scryfallId', 'name', 'setCode', 'setName', 'number', 'rarity', 'year', 'typeLine', 'manaCost'),
          ...(typeLine ? { type: typeLine } : {}),
          ...(manaCost ? { manaCost } : {}),
          colors: colorsOf(manaCost),
        },
        links: mtgLinks({ setCode, number }, {}),
        aliases: [],
        flags: withSetFlags(setCode, []),
      },
      at,
    });
  }

  finish(cards: RowSet): void {
    for (const { row, at } of this.rows) cards.add(row, at);
    this.rows.length = 0;
  }
}
