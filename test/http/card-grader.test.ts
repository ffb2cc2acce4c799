import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCard, makeScene, standardCard } from '../helpers/card-scenes.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

const base = '/account/v2/request';
type Rec = Record<string, unknown> & { _status: { code: number; text: string } };

async function jpeg(img: { data: Uint8Array; width: number; height: number }): Promise<string> {
  return (await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer()).toString('base64');
}

describe.each(backends)('card grader (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 30_000, warm: [], embedder: '' }, queue: { workers: 2, pollMs: 200 } });
    await h.app.ready();
  });
  afterAll(() => h?.close());

  async function run(endpoint: string, records: Record<string, unknown>[]): Promise<Rec[]> {
    const res = await h.request('POST', `${base}/`, { body: { type: 'card-grader', endpoint, records } });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    for (let i = 0; i < 600; i++) {
      const d = (await h.request('GET', `${base}/${id}`)).json() as { status: string; response?: { records: Rec[] } };
      if (d.status === 'DONE') return d.response!.records;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('not done');
  }

  it('localize: corners within 1 % of the card width, named corners and edges, versions; no card is a per-record 404', async () => {
    const scene = await makeScene(standardCard(), 21, { rotationDeg: 8, perspective: 0.04, noise: 6 });
    const noise = new Uint8Array(320 * 240 * 3).map((_, i) => (i * 7919) % 251);
    const [card, none, broken] = await run('localize', [{ _id: 'c', _base64: await jpeg(scene.image) }, { _id: 'n', _base64: await jpeg({ data: noise, width: 320, height: 240 }) }, { _id: 'b', _base64: '%%' }]);
    expect(card).toMatchObject({ _id: 'c', _width: 1600, _height: 1200, _status: { code: 200 } });
    const points = card!._points as [number, number][];
    const width = Math.hypot(scene.quad[1][0] - scene.quad[0][0], scene.quad[1][1] - scene.quad[0][1]);
    points.forEach((p, i) => expect(Math.hypot(p[0] - scene.quad[i]![0], p[1] - scene.quad[i]![1]) / width).toBeLessThan(0.01));
    expect((card!._objects as { name: string }[])[0]).toMatchObject({ id: 0, name: 'Card', bound_box: expect.any(Array) });
    expect((card!.corners as { name: string; point: number[] }[]).map((c) => c.name)).toEqual(['UPPER_LEFT', 'UPPER_RIGHT', 'DOWN_RIGHT', 'DOWN_LEFT']);
    expect((card!.edges as { name: string; polygon: number[][] }[]).map((e) => [e.name, e.polygon.length])).toEqual([['UPPER', 4], ['RIGHT', 4], ['DOWN', 4], ['LEFT', 4]]);
    expect((card!.card as { name: string }[])[0]!.name).toBe('CARD');
    expect(card!.versions).toMatchObject({ detection: expect.stringMatching(/^[0-9a-f]{8}$/), points: expect.any(String) });
    expect(none!._status).toMatchObject({ code: 404, text: 'No card was found in the image' });
    expect(broken!._status.code).toBe(400);
  }, 60_000);

  it('centering: the margins of an off-centre card, a grade, and the two pictures (or none when asked)', async () => {
    const scene = await makeScene(standardCard([44, 26, 16, 34]), 22, { rotationDeg: -6 });
    const b64 = await jpeg(scene.image);
    const [rec, quiet] = await run('centering', [{ _id: 'off', _base64: b64 }, { _id: 'quiet', _base64: b64, 'no-image-output': true }]);
    expect(rec!._status.code).toBe(200);
    const c = (rec!.card as { centering: { 'left/right': string; 'top/bottom': string; grade: number; pixels: number[] } }[])[0]!.centering;
    expect(Math.abs(Number(c['left/right'].split('/')[0]) - (100 * 44) / 60)).toBeLessThan(1);
    expect(Math.abs(Number(c['top/bottom'].split('/')[0]) - (100 * 26) / 60)).toBeLessThan(1);
    expect(c.grade).toBeGreaterThan(1);
    expect(c.grade).toBeLessThan(8);
    expect(rec!.grades).toEqual({ centering: c.grade });
    // Tags no measurement decides are the documented assumptions, flagged pre-filled.
    expect((rec!.card as { _tags: unknown }[])[0]!._tags).toEqual({
      Category: [{ id: 0, name: 'Trading Card Game', prob: 1, 'pre-filled': true }],
      Side: [{ id: 0, name: 'Front', prob: 1, 'pre-filled': true }],
      Autograph: [],
    });
    for (const key of ['_clean_url_card', '_exact_url_card']) {
      const media = await h.app.inject({ method: 'GET', url: new URL(rec![key] as string).pathname });
      expect(media.statusCode).toBe(200);
      const meta = await sharp(media.rawPayload).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.abs(meta.width! / meta.height! - 63 / 88)).toBeLessThan(0.01);
    }
    expect(quiet).not.toHaveProperty('_clean_url_card');
    expect(quiet).not.toHaveProperty('_exact_url_card');
  }, 60_000);

  it('centering of a borderless card says it cannot be measured; skip-location takes the whole image as the card', async () => {
    const art = { ...standardCard([0, 0, 0, 0]) };
    const scene = await makeScene(art, 23, {});
    const flat = await sharp(await makeCard(standardCard([36, 30, 24, 30]), 5), { raw: { width: 630, height: 880, channels: 4 } }).flatten({ background: '#f0cd28' }).jpeg().toBuffer();
    const [borderless, whole] = await run('centering', [{ _base64: await jpeg(scene.image) }, { _base64: flat.toString('base64'), 'skip-location': true }]);
    const c = (borderless!.card as { centering: { grade: null; detail: string } }[])[0]!.centering;
    expect(c.grade).toBeNull();
    expect(c.detail).toMatch(/not measured/);
    expect(borderless!.grades).toEqual({ centering: null });
    const w = (whole!.card as { centering: { 'left/right': string } }[])[0]!.centering;
    expect(Math.abs(Number(w['left/right'].split('/')[0]) - 60)).toBeLessThan(1.5);
  }, 60_000);

  it('localize with transparent: the opaque card region of a cut-out PNG', async () => {
    const card = await makeCard(standardCard(), 6);
    const png = await sharp({ create: { width: 900, height: 1100, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: card, raw: { width: 630, height: 880, channels: 4 }, left: 120, top: 90 }])
      .png()
      .toBuffer();
    const [rec] = await run('localize', [{ _base64: png.toString('base64'), transparent: true }]);
    expect(rec!._status.code).toBe(200);
    const want = [[120, 90], [749, 90], [749, 969], [120, 969]];
    // Extreme opaque points sit on the rounded corners' arcs: within 4 % of the width of the sharp corners.
    (rec!._points as number[][]).forEach((p, i) => expect(Math.hypot(p[0]! - want[i]![0]!, p[1]! - want[i]![1]!)).toBeLessThan(630 * 0.04));
  }, 60_000);

  it('crop_level: an upright WebP of the card', async () => {
    const scene = await makeScene(standardCard(), 24, { rotationDeg: 15 });
    const [rec] = await run('crop_level', [{ _base64: await jpeg(scene.image) }]);
    const media = await h.app.inject({ method: 'GET', url: new URL(rec!._img_url as string).pathname });
    const meta = await sharp(media.rawPayload).metadata();
    expect(meta.format).toBe('webp');
    expect(Math.abs(meta.width! / meta.height! - 63 / 88)).toBeLessThan(0.01);
  }, 60_000);

  it('grade: sub-grades measured on the card, final and condition, front and back weighed, pictures', async () => {
    const clean = await jpeg((await makeScene({ ...standardCard([30, 30, 30, 30]), border: [40, 60, 140] }, 51, { rotationDeg: 4, noise: 3 })).image);
    const worn = await jpeg((await makeScene({ ...standardCard([30, 30, 30, 30]), border: [40, 60, 140], damage: { whitenedCorner: 18, nicks: 4, nickSize: 10, scratches: [260, 200] } }, 52, { rotationDeg: -3, noise: 3 })).image);
    const submit = async (body: Record<string, unknown>) => {
      const res = await h.request('POST', `${base}/`, { body: { type: 'card-grader', endpoint: 'grade', ...body } });
      expect(res.statusCode, res.body).toBe(201);
      const id = res.json().id as string;
      for (let i = 0; i < 600; i++) {
        const d = (await h.request('GET', `${base}/${id}`)).json() as { status: string; response?: { records: Rec[]; grades: Record<string, number | string | null>; type: string; endpoint: string; front_weight?: number } };
        if (d.status === 'DONE') return d.response!;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('not done');
    };
    const pair = await submit({ records: [{ _id: 'front', _base64: worn }, { _id: 'back', _base64: clean }] });
    expect(pair).toMatchObject({ type: 'card-grader', endpoint: 'grade', front_weight: 0.7 });
    const [front, back] = pair.records;
    const fg = front!.grades as { corners: number; edges: number; surface: number; centering: number; final: number; condition: string };
    const bg = back!.grades as typeof fg;
    expect(fg.final).toBeLessThan(bg.final);
    expect(fg.surface).toBeLessThan(bg.surface);
    // The surface's measurements: scratches (lines), creases and border stains, glare apart.
    const surfaceOf = (r: Rec) => (r.card as { surface: Record<string, number | null> }[])[0]!.surface;
    expect(surfaceOf(front!)).toEqual({ grade: fg.surface, lines: expect.any(Number), creases: 0, stains: expect.any(Number), glare: expect.any(Number) });
    expect(surfaceOf(front!).lines).toBeGreaterThan(0.3);
    expect(surfaceOf(back!)).toMatchObject({ lines: 0, creases: 0, stains: 0 });
    expect(fg.edges).toBeLessThan(bg.edges);
    expect((front!.corners as { name: string; grade: number }[])[0]!.grade).toBeLessThan((front!.corners as { grade: number }[])[2]!.grade);
    expect(bg.final).toBeGreaterThanOrEqual(9);
    expect(pair.grades.final).toBeCloseTo(Math.round((fg.final * 0.7 + bg.final * 0.3) * 10) / 10, 5);
    expect(front!.versions).toMatchObject({ corners: expect.any(String), edges: expect.any(String), surface: expect.any(String), centering: expect.any(String), final: expect.any(String) });
    for (const key of ['_full_url_card', '_exact_url_card']) expect((await h.app.inject({ method: 'GET', url: new URL(front![key] as string).pathname })).statusCode).toBe(200);
    type Tags = Record<string, { name: string; prob: number; 'pre-filled'?: true }[]>;
    const tagsOf = (r: Rec) => (r.card as { _tags: Tags }[])[0]!._tags;
    expect(tagsOf(front!).Side).toEqual([{ id: 0, name: 'Front', prob: 1, 'pre-filled': true }]);
    expect(tagsOf(back!).Side).toEqual([{ id: 1, name: 'Back', prob: 1, 'pre-filled': true }]);
    // Damaged is measured: the worn card's worst sub-grade is past the line, the clean one's is not.
    expect(tagsOf(back!).Damaged![0]).toMatchObject({ name: 'No' });
    expect(tagsOf(back!).Damaged![0]!.prob).toBeGreaterThan(0.9);
    expect(tagsOf(back!).Damaged![0]).not.toHaveProperty('pre-filled');
    const worstFront = Math.min(...(front!.corners as { grade: number }[]).map((c) => c.grade), ...(front!.edges as { grade: number }[]).map((e) => e.grade), fg.surface);
    expect(tagsOf(front!).Damaged!.find((t) => t.name === 'Yes')!.prob).toBeCloseTo(1 / (1 + Math.exp((worstFront - 4) / 0.5)), 2);
    // Hints from the client are taken, and shown as given.
    const hinted = await submit({ records: [{ _base64: clean, Side: 'back', Category: 'Sports', Autograph: true }] });
    expect(tagsOf(hinted.records[0]!)).toMatchObject({ Side: [{ name: 'Back' }], Category: [{ name: 'Sport' }], Autograph: [{ name: 'Yes', 'pre-filled': true }] });
    const even = await submit({ records: [{ _base64: worn }, { _base64: clean }], front_weight: 0.5 });
    expect(even.grades.final).toBeCloseTo(Math.round(((even.records[0]!.grades as typeof fg).final * 0.5 + (even.records[1]!.grades as typeof fg).final * 0.5) * 10) / 10, 5);
  }, 120_000);

  it('condition: the label on the asked scale', async () => {
    const clean = await jpeg((await makeScene({ ...standardCard(), border: [40, 60, 140] }, 53, { rotationDeg: 2 })).image);
    const res = await h.request('POST', `${base}/`, { body: { type: 'card-grader', endpoint: 'condition', mode: 'grading', records: [{ _base64: clean }] } });
    expect(res.statusCode).toBe(201);
    const id = res.json().id as string;
    let rec: Rec | undefined;
    for (let i = 0; i < 600 && !rec; i++) {
      const d = (await h.request('GET', `${base}/${id}`)).json() as { status: string; response?: { records: Rec[] } };
      if (d.status === 'DONE') rec = d.response!.records[0];
      else await new Promise((r) => setTimeout(r, 50));
    }
    const object = (rec!._objects as { name: string; 'Top Category': unknown[]; Condition: { value: number; label: string; mode: string; scale: string[]; scale_value: number; max_scale_value: number }[] }[])[0]!;
    expect(object.name).toBe('Card');
    expect(object['Top Category']).toEqual([{ id: 0, name: 'Card', prob: 1 }]);
    const c = object.Condition[0]!;
    expect(c).toMatchObject({ mode: 'grading', max_scale_value: 8 });
    expect(c.scale[c.max_scale_value - c.scale_value]).toBe(c.label);
    expect(c.value).toBeGreaterThan(8);
    expect((rec!._objects as { Category: unknown[] }[])[0]!.Category).toEqual([{ id: 0, name: 'Trading Card Game', prob: 1, 'pre-filled': true }]);
  }, 60_000);

  it('refuses unknown endpoints and modes, misplaced options, and more records than an endpoint takes', async () => {
    const rec = { _url: 'http://example.com/card.jpg' };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ endpoint: 'appraise', records: [rec] }, /grade, condition, centering, localize, crop_level/],
      [{ endpoint: 'grade', records: [rec, rec, rec] }, /at most 2 records/],
      [{ endpoint: 'condition', mode: 'fancy', records: [rec] }, /Unknown mode "fancy"/],
      [{ endpoint: 'localize', mode: 'grading', records: [rec] }, /condition endpoint only/],
      [{ endpoint: 'localize', front_weight: 0.5, records: [rec] }, /grade endpoint only/],
      [{ endpoint: 'grade', front_weight: 1.5, records: [rec] }, /front_weight/],
      [{ endpoint: 'localize', records: Array.from({ length: 11 }, () => rec) }, /records/],
    ];
    for (const [body, detail] of cases) {
      const res = await h.request('POST', `${base}/`, { body: { type: 'card-grader', ...body } });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(`${res.json().detail} ${JSON.stringify(res.json().errors ?? [])}`).toMatch(detail);
    }
  });
});
