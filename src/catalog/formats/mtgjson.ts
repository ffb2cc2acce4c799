import { fail, placeText, yearOf, type CardRow, type Fields, type RecordPlace, type RowSet } from '../catalog-rows.ts';
import { colorsOf, mtgLinks, mtgSetCode, OVERSIZED_LAYOUTS, withSetFlags, type MtgCardReader } from './mtg-common.ts';

interface Face {
  side: string | null;
  faceName: string | null;
  type: string | null;
  manaCost: string | null;
  uuid: string;
}

interface Printing {
  row: CardRow;
  faces: Face[];
  at: RecordPlace;
}

/**
 * MTGJSON v5 printings, one record per card face. The faces of one physical card (transform,
 * modal double-faced, split, adventure, flip, meld: `side` a, b, …) share a Scryfall id and
 * become one row keyed by it, with each face's name, type and mana cost under `faces` and every
 * face's MTGJSON uuid kept as an alias (prices name a printing by any of them). Faces need not be
 * next to each other in the file.
 */
export class MtgjsonPrintings implements MtgCardReader {
  readonly format = 'mtgjson';
  readonly rank = 2;
  private readonly printings = new Map<string, Printing>();

  add(f: Fields, at: RecordPlace): void {
    const uuid = f.need('uuid');
    const ids = f.object('identifiers') ?? fail(at, '"identifiers" is missing');
    const scryfallId = ids.need('scryfallId');
    const setCodeGiven = f.need('setCode');
    const setCode = mtgSetCode(setCodeGiven);
    const number = f.need('number');
    const face: Face = { side: f.text('side'), faceName: f.text('faceName'), type: f.text('type'), manaCost: f.text('manaCost'), uuid };
    const before = this.printings.get(scryfallId);
    if (before) {
      const where = placeText(before.at);
      if (face.side === null || before.faces.some((x) => x.side === face.side || x.side === null)) {
        fail(at, `Scryfall id ${scryfallId} is already ${where}, and not as another face (side ${face.side ?? 'none'})`);
      }
      if (before.row.setCode !== setCode || before.row.number !== number) fail(at, `a face of Scryfall id ${scryfallId} with set ${setCode} #${number}, where ${where} says ${before.row.setCode} #${before.row.number}`);
      before.faces.push(face);
      return;
    }
    f.textList('finishes');
    const purchase = f.object('purchaseUrls');
    const layout = f.text('layout');
    const links: Record<string, string> = { ...(purchase ? (purchase.rest() as Record<string, string>) : {}) };
    Object.assign(links, mtgLinks({ setCode, number }, { multiverseId: ids.text('multiverseId'), tcgplayerProductId: ids.text('tcgplayerProductId') }));
    const flags: string[] = [];
    if ((layout && OVERSIZED_LAYOUTS.has(layout)) || f.boolean('isOversized')) flags.push('oversized');
    if (f.boolean('isOnlineOnly')) flags.push('digital');
    if (f.boolean('isPromo')) flags.push('promo');
    const row: CardRow = {
      key: scryfallId,
      name: f.need('name'),
      setCode,
      setName: f.text('setName'),
      number,
      rarity: f.text('rarity'),
      year: yearOf(f.text('year') ?? f.text('releaseDate')),
      fields: {
        ...f.rest('uuid', 'name', 'faceName', 'side', 'setCode', 'setName', 'number', 'rarity', 'year', 'type', 'manaCost', 'purchaseUrls', 'otherFaceIds'),
        ...(setCodeGiven !== setCode ? { mtgjsonSetCode: setCodeGiven } : {}),
      },
      links,
      aliases: [],
      flags: withSetFlags(setCode, flags),
    };
    this.printings.set(scryfallId, { row, faces: [face], at });
  }

  finish(cards: RowSet): void {
    for (const { row, faces, at } of this.printings.values()) {
      faces.sort((a, b) => (a.side ?? '').localeCompare(b.side ?? ''));
      const first = faces[0]!;
      const several = faces.length > 1;
      const joined = (pick: (f: Face) => string | null) => (several ? faces.map((x) => pick(x) ?? '').join(' // ') : pick(first));
      row.fields = {
        uuid: first.uuid,
        ...row.fields,
        ...(faces.some((x) => x.type) ? { type: joined((x) => x.type) } : {}),
        ...(faces.some((x) => x.manaCost) ? { manaCost: joined((x) => x.manaCost) } : {}),
        colors: colorsOf(...faces.map((x) => x.manaCost)),
        ...(several ? { faces: faces.map((x) => ({ side: x.side, name: x.faceName, type: x.type, manaCost: x.manaCost, uuid: x.uuid })) } : {}),
      };
      row.aliases = faces.map((x) => x.uuid);
      cards.add(row, at);
    }
    this.printings.clear();
  }
}
