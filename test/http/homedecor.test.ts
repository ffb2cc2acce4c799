import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import sharp from 'sharp';
import { photoBase64 } from '../helpers/photos.ts';
import { rememberVision } from '../helpers/vision-memo.ts';

// A canteen: chairs, a table, tableware; the only real photo here with furniture CenterNet finds.
const canteen = photoBase64('faces/bbt2.jpg');
const watch = photoBase64('caltech101/watch/image_0001.jpg');

type Obj = { id: string; name: string; prob: number; bound_box: number[]; area: number; 'Top Category'?: string; Category?: string; category_source?: string; category_filter?: boolean; 'pre-filled'?: boolean };
type Body = { status: { code: number; text: string }; query_records?: { _objects?: Obj[]; _text_engine?: string }[]; answer_records: Record<string, unknown>[]; skipped_records?: { _id: unknown; _reason: { status: { code: number; text: string } } }[]; answer_count: number; code?: string };

describe.each(backends)('home-decor collections (%s)', (backend) => {
  let h: Harness;
  type Owned = { id: string; account: string; token: string };
  const call = async (url: string, body: unknown, c: Owned) => {
    const res = await h.request('POST', url, { body, headers: { 'collection-id': c.id }, token: c.token });
    return { http: res.statusCode, body: res.json() as Body, headers: res.headers };
  };
  const base = '/similarity/homedecor-new/v2';
  let shop: Owned;
  const get = async (id: string) => (await call(`${base}/get`, { records: [{ _id: id }] }, shop)).body.answer_records[0]!;

  beforeAll(async () => {
    // the server's default views of objects: the framed one finds what fills the frame
    h = await startHarness(backend, { seen: ['objects', 'framed', 'colors'] });
    // the same photos are stored and searched again and for the second backend (test/helpers/vision-memo.ts)
    rememberVision(h);
    const { account, token } = await h.newAccount(1000);
    shop = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'homedecor', name: 'decor' })).id, account, token };
    const res = await call(`${base}/insert`, {
      records: [
        { _id: 'room', _base64: canteen, product_id: 'r1', extract_colors: true, extract_tags: true },
        { _id: 'cups', _base64: canteen, product_id: 'r2', Category: 'Tazas' },
        { _id: 'clock', _base64: watch, product_id: 'c1', 'Top Category': 'Decor', Category: 'Wall clocks' },
        { _id: 'no-product', _base64: canteen },
      ],
    }, shop);
    expect(res.body.status.code).toBe(211);
    expect(res.body.skipped_records).toEqual([expect.objectContaining({ _id: 'no-product', _reason: expect.objectContaining({ status: expect.objectContaining({ code: 400 }) }) })]);
  }, 180_000);
  afterAll(() => h?.close());

  it('stores the largest home-decor item of a real photo, with the taxonomy the detector gives', async () => {
    const room = await get('room');
    const [item] = room._objects as Obj[];
    expect(item).toMatchObject({ id: '0', category_source: 'detector' });
    // CenterNet sees two chair backs, a bottle and a cup here (the bottle is the largest box); no
    // body regions in home decor, however many people.
    expect(['chair', 'dining table', 'cup', 'bottle']).toContain(item!.name);
    expect(String(room.Category)).toMatch(/^(Furniture|Kitchen)\//);
    expect(room['Top Category']).toBe(String(room.Category).split('/')[0]);
    expect(item!.area).toBe((item!.bound_box[2]! - item!.bound_box[0]!) * (item!.bound_box[3]! - item!.bound_box[1]!));
    expect((room._tags_simple as string[])[0]).toBe(item!.name);
    expect((room._dominant_colors as { percentages: number[] }).percentages.length).toBeGreaterThan(0);
  });

  it("chooses the item the record's own category names, in another language, and keeps it as sent", async () => {
    const cups = await get('cups');
    expect(cups.Category).toBe('Tazas');
    expect((cups._objects as Obj[])[0]).toMatchObject({ name: 'cup', category_source: 'record', 'pre-filled': true });
    // "Wall clocks" asks for a clock: CenterNet takes the Caltech wristwatch for one.
    const clock = await get('clock');
    expect(clock).toMatchObject({ 'Top Category': 'Decor', Category: 'Wall clocks' });
    expect((clock._objects as Obj[])[0]).toMatchObject({ name: 'clock', category_source: 'record' });
  });

  it("keeps a record's own _dominant_colors and _tags as sent with the flags on, on insert and on an update without an image (h331: the server's replaced them)", async () => {
    const { account, token } = await h.newAccount(100);
    const c: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'homedecor', name: 'own' })).id, account, token };
    const read = async () => (await call(`${base}/get`, { records: [{ _id: 'sofa' }] }, c)).body.answer_records[0]!;
    const colours = { luv_colors: [[50, 10, 10]], percentages: [100] };
    const tags = { Mine: ['x'] };
    const res = await call(`${base}/insert`, { records: [{ _id: 'sofa', _base64: canteen, product_id: 's', extract_colors: true, extract_tags: true, _dominant_colors: colours, _tags: tags }] }, c);
    expect(res.body.status.code).toBe(210);
    const stored = await read();
    expect([stored._dominant_colors, stored._tags]).toEqual([colours, tags]);
    // the flags still make what the record did not send
    expect((stored._tags_simple as string[])[0]).toBe((stored._objects as Obj[])[0]!.name);
    const other = { luv_colors: [[80, -20, 40]], percentages: [60] };
    const updated = await call(`${base}/update`, { records: [{ _id: 'sofa', _dominant_colors: other, _tags: { Yours: ['y'] } }] }, c);
    expect(updated.body.status.code).toBe(205);
    expect(await read()).toMatchObject({ _dominant_colors: other, _tags: { Yours: ['y'] }, _tags_simple: stored._tags_simple });
  });

  it('visualKNN lists the furniture items of a photo, largest first, and filters by the query item category', async () => {
    const res = await call(`${base}/visualKNN`, { query_record: { _base64: canteen }, k: 5 }, shop);
    expect(res.http).toBe(200);
    const objects = res.body.query_records![0]!._objects!;
    expect(objects.some((o) => o.name === 'chair')).toBe(true);
    expect(objects.every((o) => !['upper body', 'lower body', 'full body', 'footwear', 'person'].includes(o.name))).toBe(true);
    const areas = objects.map((o) => o.area);
    expect([...areas].sort((a, b) => b - a)).toEqual(areas);
    expect(res.body.answer_records.map((r) => r._id)).toContain('room');
    // the item searched shows the categories that filtered the answers (rule 5), and where they came from
    const room = await get('room');
    expect(objects[0]).toMatchObject({ name: (room._objects as Obj[])[0]!.name, Category: room.Category, category_source: 'detector', category_filter: true });
    const cups = await call(`${base}/visualKNN`, { query_record: { _base64: canteen, Category: 'Tazas' }, k: 5 }, shop);
    expect(cups.body.answer_records.map((r) => r._id)).toEqual(['cups']);
    expect(cups.body.query_records![0]!._objects![0]).toMatchObject({ name: 'cup', Category: 'Tazas', category_source: 'record', category_filter: true });
    // a drawn box names no kind of item: nothing filters, and the echo says so
    const drawn = await call(`${base}/visualKNN`, { query_record: { _base64: canteen, _objects: [{ bound_box: [10, 10, 200, 200] }] }, k: 5 }, shop);
    expect(drawn.body.query_records![0]!._objects![0]).toMatchObject({ bound_box: [10, 10, 200, 200], 'pre-filled': true, category_filter: false });
    expect(drawn.body.answer_count).toBe(3);
    const two = await call(`${base}/visualKNN`, { records: [{ _id: 'room' }, { _id: 'cups' }] }, shop);
    expect(two.http).toBe(400);
    // a filter naming the categories chooses the item and filters alone: ANDed with the default filter it answered
    // nothing wherever the two differed (h141)
    const filtered = await call(`${base}/visualKNN`, { query_record: { _base64: canteen }, filter: { Category: 'Tazas' }, k: 5 }, shop);
    expect(filtered.body.answer_records.map((r) => r._id)).toEqual(['cups']);
    expect(filtered.body.query_records![0]!._objects![0]).toMatchObject({ name: 'cup', category_filter: false, category_source: 'filter' });
    // and in nearDuplicates and range, whose echo says no category filtered them (h144)
    const dups = await call(`${base}/nearDuplicates`, { query_record: { _base64: canteen }, filter: { Category: 'Tazas' }, radius: 5 }, shop);
    expect(dups.body.answer_records.map((r) => r._id)).toEqual(['cups']);
    expect(dups.body.query_records![0]!._objects![0]).toMatchObject({ name: 'cup', category_filter: false });
    const ranged = await call(`${base}/range`, { query_record: { _base64: canteen }, radius: 50 }, shop);
    expect(ranged.body.query_records![0]!._objects![0]!.category_filter).toBe(false);
    const byRecord = await call(`${base}/visualKNN`, { query_record: { _id: 'room' }, filter: { $or: [{ 'Top Category': 'Decor' }, { Category: 'Tazas' }] }, k: 5 }, shop);
    expect(byRecord.body.answer_records.map((r) => r._id).sort()).toEqual(['clock', 'cups']);
    // an object naming no item (a detected item's id alone) is refused, not searched as the whole photo
    const idOnly = await call(`${base}/visualKNN`, { query_record: { _base64: canteen, _objects: [{ id: '0' }] }, k: 5 }, shop);
    expect([idOnly.http, (idOnly.body as unknown as { detail: string }).detail]).toEqual([400, 'query_record._objects[0] names no item: send it as a response gave it (with its bound_box), a bound_box of your own, or its Top Category / Category.']);
  });

  it("a record's path Category filters alone: a record with the same Category and no Top Category is the same kind (h242)", async () => {
    const own = { ...shop, id: (await h.app.loupe.collections.create({ accountId: shop.account, type: 'homedecor', name: 'clocks' })).id };
    const res = await call(`${base}/insert`, {
      records: [
        { _id: 'both', _base64: watch, product_id: 'p1', 'Top Category': 'Decor', Category: 'Decor/Clock' },
        { _id: 'path-only', _base64: watch, product_id: 'p2', Category: 'Decor/Clock' },
        { _id: 'vase', _base64: watch, product_id: 'p3', 'Top Category': 'Decor', Category: 'Decor/Vase' },
      ],
    }, own);
    expect(res.http).toBeLessThan(300);
    expect(res.body.skipped_records ?? []).toEqual([]);
    for (const id of ['both', 'path-only']) {
      const found = await call(`${base}/visualKNN`, { query_record: { _id: id }, k: 5 }, own);
      expect(found.body.answer_records.map((r) => r._id).sort(), id).toEqual(['both', 'path-only']);
    }
  }, 120_000);

  it('a query photo has the items its insert found: the framed view too, whatever text search records (h141)', async () => {
    // the middle half of a Caltech statue: CenterNet's plain view sees a person, its framed view a teddy bear (Decor/Soft toy)
    const photo = Buffer.from(photoBase64('caltech101/buddha/image_0002.jpg'), 'base64');
    const m = await sharp(photo).metadata();
    const [w, hgt] = [Math.round(m.width! / 2), Math.round(m.height! / 2)];
    const toy = (await sharp(photo).extract({ left: Math.round(w / 2), top: Math.round(hgt / 2), width: w, height: hgt }).jpeg({ quality: 90 }).toBuffer()).toString('base64');
    const own = { id: (await h.app.loupe.collections.create({ accountId: shop.account, type: 'homedecor', name: 'toys' })).id, account: shop.account, token: shop.token };
    expect((await call(`${base}/insert`, { records: [{ _id: 'toy', _base64: toy, product_id: 't1' }] }, own)).body.status.code).toBe(210);
    const stored = (await call(`${base}/get`, { records: [{ _id: 'toy' }] }, own)).body.answer_records[0]!;
    expect((stored._objects as Obj[])[0]).toMatchObject({ name: 'teddy bear', Category: 'Decor/Soft toy' });
    const res = await call(`${base}/visualKNN`, { query_record: { _base64: toy }, k: 3 }, own);
    expect(res.body.query_records![0]!._objects![0]).toMatchObject({ name: 'teddy bear', bound_box: (stored._objects as Obj[])[0]!.bound_box, category_filter: true });
    expect(res.body.answer_records.map((r) => r._id)).toEqual(['toy']);
  });

  it('finds the room by text in several languages, on the home-decor text path only', async () => {
    for (const q of ['chair', 'sillas', 'стул']) {
      const res = await call('/similarity/text/homedecor/v2/text', { query_record: { _text_data: q } }, shop);
      expect(res.http, q).toBe(200);
      expect(res.body.answer_records.map((r) => r._id), q).toContain('room');
      expect(res.body.query_records![0]!._text_engine).toBe('keyword');
    }
    expect((await call('/similarity/text/fashion/v2/text', { query_record: { _text_data: 'chair' } }, shop)).http).toBe(400);
    // a thing no record shows nor names is said, as the answers then match only the query's other words (h141: "blue
    // bed" answered a blue clock, unsaid)
    const noBed = await call('/similarity/text/homedecor/v2/text', { query_record: { _text_data: 'white bed' } }, shop);
    expect(noBed.http).toBe(200);
    expect((noBed.body.query_records![0] as { _unmatched_terms?: string[] })._unmatched_terms).toEqual(['bed']);
    const chairs = await call('/similarity/text/homedecor/v2/text', { query_record: { _text_data: 'white chair' } }, shop);
    expect(chairs.body.query_records![0]).not.toHaveProperty('_unmatched_terms');
    // nor a thing a record names in its own words, unseen by the detector
    const named = await call('/similarity/text/homedecor/v2/text', { query_record: { _text_data: 'clock' } }, shop);
    expect(named.body.answer_records.map((r) => r._id)).toContain('clock');
    expect(named.body.query_records![0]).not.toHaveProperty('_unmatched_terms');
  });

  it('answers on the deprecated base, naming its successor', async () => {
    const res = await call('/similarity/homedecor/v2/get', { records: [{ _id: 'room' }] }, shop);
    expect(res.http).toBe(200);
    expect(res.headers.deprecation).toBe('@1795478400');
    expect(res.headers.link).toBe('</similarity/homedecor-new/v2/get>; rel="successor-version"');
    // the router's own answers under it too: a method the path lacks (h251: its 405 had neither header)
    const wrong = await h.request('GET', '/similarity/homedecor/v2/allRecords', { headers: { 'collection-id': shop.id }, token: shop.token });
    expect([wrong.statusCode, wrong.headers.deprecation, wrong.headers.link]).toEqual([405, '@1795478400', '</similarity/homedecor-new/v2/allRecords>; rel="successor-version"']);
  });

  it("lets records stored by their whole image vote on a photo's categories: a statue seen as a bed finds itself once the shop lists a bed (h253)", async () => {
    const { account, token } = await h.newAccount(1000);
    const decor: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'homedecor', name: 'statues' })).id, account, token };
    const statue = photoBase64('caltech101/buddha/image_0001.jpg');
    expect((await call(`${base}/insert`, { records: [{ _id: 'statue', _base64: statue, product_id: 'ST', 'Top Category': 'Decor', Category: 'Decor/Statue' }, { _id: 'bed', _base64: photoBase64('caltech101/cannon/image_0001.jpg'), product_id: 'BED', 'Top Category': 'Furniture', Category: 'Furniture/Bed' }] }, decor)).body.status.code).toBe(210);
    const found = await call(`${base}/visualKNN`, { query_record: { _base64: statue }, k: 5 }, decor);
    const searched = found.body.query_records![0]!._objects![0]!;
    // CenterNet's guess on this photo is a bed (0.4): the detector's categories filtered to the shop's beds; the nearest
    // records' vote, the statue's whole-image record among them, gives the shop's own
    expect(searched.name).toBe('bed');
    expect(searched).toMatchObject({ 'Top Category': 'Decor', Category: 'Decor/Statue', category_source: 'neighbours', category_filter: true });
    expect(found.body.answer_records.map((r) => r._id)).toEqual(['statue']);
    // the statue photographed anew (a tighter crop, darker): its record is still the nearest, and still votes (h256:
    // a fixed radius of 25 left it out, the answers the shop's beds)
    const meta = await sharp(Buffer.from(statue, 'base64')).metadata();
    const anew = (await sharp(Buffer.from(statue, 'base64')).extract({ left: Math.round(meta.width! * 0.1), top: Math.round(meta.height! * 0.1), width: Math.round(meta.width! * 0.8), height: Math.round(meta.height! * 0.8) }).modulate({ brightness: 0.7 }).jpeg().toBuffer()).toString('base64');
    const again = await call(`${base}/visualKNN`, { query_record: { _base64: anew }, k: 5 }, decor);
    expect(again.body.answer_records.map((r) => r._id)).toContain('statue');
  });

  it("lets only near records stored by their whole image vote: far prints on white do not filter a photo's own record out (h255)", async () => {
    const { account, token } = await h.newAccount(1000);
    const prints: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'homedecor', name: 'prints' })).id, account, token };
    const photos = ['pyramid/image_0001', 'Leopards/image_0001', 'airplanes/image_0001', 'gerenuk/image_0007', 'Leopards/image_0002', 'dalmatian/image_0006'].map((name, i) => ({ _id: `art${i}`, _base64: photoBase64(`caltech101/${name}.jpg`), product_id: `A${i}`, 'Top Category': 'Art', Category: 'Art/Prints' }));
    for (const batch of [photos.slice(0, 3), photos.slice(3)]) expect((await call(`${base}/insert`, { records: batch }, prints)).body.status.code).toBe(210);
    expect((await call(`${base}/insert`, { records: [{ _id: 'chairs', _base64: canteen, product_id: 'C', 'Top Category': 'Furniture', Category: 'Furniture/Chair' }] }, prints)).body.status.code).toBe(210);
    const found = await call(`${base}/visualKNN`, { query_record: { _base64: canteen }, k: 3 }, prints);
    expect(found.body.answer_records.map((r) => r._id)).toContain('chairs');
    expect(found.body.query_records![0]!._objects![0]!.category_source).not.toBe('neighbours');
  });

  it("refuses an update's drawn box sent without its image, as a query's beside an _id is, and says where a box off the image lies (h328)", async () => {
    const own = { ...shop, id: (await h.app.loupe.collections.create({ accountId: shop.account, type: 'homedecor', name: 'boxes' })).id };
    // a well-formed box above and left of the image: said to lie outside it (it was told its corners were out of order)
    const off = await call(`${base}/insert`, { records: [{ _id: 'off', _base64: watch, product_id: 'o', _objects: [{ bound_box: [-300, -200, -20, -10] }] }, { _id: 'w', _base64: watch, product_id: 'w' }] }, own);
    expect(off.body.skipped_records).toEqual([expect.objectContaining({ _id: 'off', _reason: expect.objectContaining({ status: expect.objectContaining({ code: 400, text: '_objects[0].bound_box lies outside the image (left of it or above it)' }) }) })]);
    const before = (await call(`${base}/get`, { records: [{ _id: 'w' }] }, own)).body.answer_records[0]!;
    // drawn without the image (stored from _base64: no link to read again): the record's 400, the item as it was; it
    // was a 205 that kept the old item without a word
    const drawn = await call(`${base}/update`, { records: [{ _id: 'w', _objects: [{ bound_box: [20, 20, 120, 120] }] }] }, own);
    expect([drawn.http, drawn.body.skipped_records?.[0]?._reason.status.text]).toEqual([400, '_objects[0].bound_box chooses the item in the image: send the image with it (_url or _base64) in the same update; without one the record keeps the item it is stored by']);
    expect((await call(`${base}/get`, { records: [{ _id: 'w' }] }, own)).body.answer_records[0]!._objects).toEqual(before._objects);
    // with the image it is the item stored; sent back as read afterwards, it is no change
    const withImage = await call(`${base}/update`, { records: [{ _id: 'w', _base64: watch, _objects: [{ bound_box: [20, 20, 120, 120] }] }] }, own);
    expect(withImage.http).toBe(200);
    const after = (await call(`${base}/get`, { records: [{ _id: 'w' }] }, own)).body.answer_records[0]!;
    expect((after._objects as Obj[])[0]).toMatchObject({ bound_box: [20, 20, 120, 120], 'pre-filled': true });
    const { _objects: objects } = after;
    const back = await call(`${base}/update`, { records: [{ _id: 'w', _objects: objects, title: 'Wall clock' }] }, own);
    expect([back.http, back.body.answer_records[0]]).toEqual([200, expect.objectContaining({ _objects: objects, title: 'Wall clock' })]);
    // the drawn box alone, as the client first sent it: the stored item's box, no change either
    expect((await call(`${base}/update`, { records: [{ _id: 'w', _objects: [{ bound_box: [20, 20, 120, 120] }] }] }, own)).http).toBe(200);
  });

  it('refuses a box beside an _id alone, which it cannot search, and takes the stored item as a response gave it (h253: searched the stored item without a word)', async () => {
    const room = await get('room');
    const stored = (room._objects as Obj[])[0]!;
    const drawn = await call(`${base}/visualKNN`, { query_record: { _id: 'room', _objects: [{ bound_box: [950, 60, 1150, 260] }] }, k: 3 }, shop);
    expect([drawn.http, drawn.body.status.text]).toEqual([400, expect.stringMatching(/^query_record\._objects: a box is searched in its image: send the image with it/)]);
    const malformed = await call(`${base}/visualKNN`, { query_record: { _id: 'room', _objects: [{ bound_box: [10, 10, 100] }] }, k: 3 }, shop);
    expect([malformed.http, malformed.body.status.text]).toEqual([400, expect.stringMatching(/bound_box must be \[xmin, ymin, xmax, ymax\]/)]);
    const copied = await call(`${base}/visualKNN`, { query_record: { _id: 'room', _objects: [stored] }, k: 3 }, shop);
    expect(copied.http).toBe(200);
    expect(copied.body.answer_records[0]!._id).toBe('room');
  });
});
