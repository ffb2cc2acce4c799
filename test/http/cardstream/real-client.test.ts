import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../../helpers/harness.ts';

/**
 * Behaves like the live-stream card scanner of DESIGN §5: trailing slashes, `?workspace=` on every
 * call, batches of at most 500, re-sent event ids with growing duration/calls, a calls report per
 * run, close, resume by reopen, skip rows already uploaded, upload again.
 */
class ScannerClient {
  uploadedBatches = 0;
  droppedBatches = 0;
  stopped: number | null = null;
  /** The real client retries 429 and 5xx silently; the test still wants to know. */
  retries = 0;
  constructor(
    private readonly h: Harness,
    private readonly token: string,
    private readonly workspace: string,
  ) {}

  private async call(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, query = ''): Promise<{ status: number; json: LightMyRequestResponse['json'] }> {
    const url = `/cardstream/v2/${path}?workspace=${this.workspace}${query}`;
    for (let attempt = 0; attempt < 5; attempt++) {
      const res = await this.h.app.inject({ method, url, headers: { authorization: `Token ${this.token}`, 'content-type': 'application/json' }, payload: body === undefined ? '' : JSON.stringify(body) });
      if (res.statusCode === 429 || res.statusCode >= 500) {
        this.retries++;
        continue;
      }
      if ([401, 403, 404, 409].includes(res.statusCode)) this.stopped = res.statusCode;
      return { status: res.statusCode, json: () => res.json() };
    }
    throw new Error('gave up after retries');
  }

  async start(name: string): Promise<string> {
    const res = await this.call('POST', 'session/', { name, game: 'Pokémon', platform: 'other', client: { name: 'live-scanner', version: '3.2.0', os: 'Windows' }, meta_data: { camera: 'obs', threshold: 0.35 } });
    expect(res.status).toBe(201);
    return res.json().id;
  }

  /** What the app does when a user resumes an earlier session. */
  async resume(id: string): Promise<Set<string>> {
    const s = await this.call('GET', `session/${id}/`);
    expect(s.status).toBe(200);
    if (s.json().status === 'closed') {
      const reopened = await this.call('POST', `session/${id}/reopen/`);
      expect(reopened.status).toBe(200);
      expect(reopened.json().status).toBe('live');
      expect(reopened.json().id).toBe(id);
    }
    const seen = new Set<string>();
    let page = 1;
    for (;;) {
      const res = await this.call('GET', 'identification/', undefined, `&session=${id}&page=${page}&page_size=500`);
      expect(res.status).toBe(200);
      for (const r of res.json().results) seen.add(r.event_id);
      if (!res.json().next) break;
      page++;
    }
    return seen;
  }

  async upload(id: string, rows: Array<Record<string, unknown>>): Promise<{ created: number; duplicates: number; updated: number }> {
    const totals = { created: 0, duplicates: 0, updated: 0 };
    for (let i = 0; i < rows.length; i += 500) {
      const res = await this.call('POST', `session/${id}/identifications/`, { identifications: rows.slice(i, i + 500) });
      if (res.status === 400) {
        this.droppedBatches++;
        continue;
      }
      expect(res.status).toBe(200);
      const b = res.json();
      expect(Number.isInteger(b.created) && Number.isInteger(b.duplicates)).toBe(true);
      totals.created += b.created;
      totals.duplicates += b.duplicates;
      totals.updated += b.updated;
      this.uploadedBatches++;
    }
    return totals;
  }

  image(id: string, eventId: string, jpeg: Buffer) {
    return this.call('POST', `session/${id}/images/`, { event_id: eventId, image: jpeg.toString('base64') });
  }

  calls(id: string, run: string, calls: number) {
    return this.call('POST', `session/${id}/calls/`, { run, calls });
  }

  close(id: string) {
    return this.call('POST', `session/${id}/close/`);
  }

  summary(id: string) {
    return this.call('GET', `session/${id}/summary/`);
  }
}

/** The client's times are Python's isoformat: microseconds and `+00:00`. */
const seenAt = (i: number) => `${new Date(Date.UTC(2026, 10, 20, 20, 0, i)).toISOString().slice(0, 19)}.${String(i % 1_000_000).padStart(6, '0')}+00:00`;

/** The client sends the recognition service's price statistics, and no price. */
const priceStats = [
  { stats_type: 'overall', interval: '90d', start_date: '2026-08-22', value: { median: 0.6, mean: 0.7, latest: 0.55, min: 0.2, max: 3 } },
  { stats_type: 'ungraded', interval: '30d', start_date: '2026-10-21', value: { median: 0.5, mean: 0.58, latest: 0.45, min: 0.2, max: 2 } },
];

const scanned = (i: number, extra: Record<string, unknown> = {}) => ({
  event_id: `frame-${i}.jpg`,
  seen: seenAt(i),
  duration: 0.8,
  calls: 1,
  id_type: 'tcg',
  name: `Card ${i % 400}`,
  full_name: `Card ${i % 400} ${i % 400}/165`,
  set_name: 'Scarlet & Violet 151',
  set_code: 'MEW',
  card_number: String(i % 400),
  distance: 0.2,
  confidence: 'high',
  price_stats: priceStats,
  links: { tcgplayer: `https://www.tcgplayer.com/search?q=${i}` },
  ...extra,
});

describe.each(backends)('a scripted run of the real live-stream client (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  it('create, upload with repeats, image, calls, close, resume by reopen, upload again', async () => {
    const ws = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'stream desk')).workspace;
    const client = new ScannerClient(h, h.account.token, ws);
    const id = await client.start('Sunday night stream');

    // First run: 1200 frames in 3 batches (500, 500, 200).
    const first = await client.upload(id, Array.from({ length: 1200 }, (_, i) => scanned(i)));
    expect(first).toEqual({ created: 1200, duplicates: 0, updated: 0 });
    expect(client.uploadedBatches).toBe(3);

    // The app re-sends some frames: longer duration and more calls make it an update; an exact repeat is a duplicate.
    const again = await client.upload(id, [scanned(5, { duration: 2.5, calls: 3, name: 'changed?' }), scanned(6)]);
    expect(again).toEqual({ created: 0, updated: 1, duplicates: 1 });

    const jpeg = await sharp({ create: { width: 745, height: 1040, channels: 3, background: '#c33' } }).jpeg().toBuffer();
    const img = await client.image(id, 'frame-5.jpg', jpeg);
    expect(img.status).toBe(200);
    expect(img.json()).toMatchObject({ event_id: 'frame-5.jpg', name: 'Card 5', calls: 3, duration: 2.5, seen: '2026-11-20T20:00:05.000005Z', price: 0.5, price_derived: true });
    expect(img.json().image).toMatch(/\/media\//);

    expect((await client.calls(id, 'run-1', 700)).status).toBe(200);
    expect((await client.calls(id, 'run-1', 1250)).status).toBe(200);
    expect((await client.close(id)).status).toBe(200);

    // Uploading to the closed session stops the client (409), as it expects.
    const blocked = new ScannerClient(h, h.account.token, ws);
    await blocked.upload(id, [scanned(5000)]).catch(() => undefined);
    expect(blocked.stopped).toBe(409);

    // Second run: resume, skip what is there, upload the rest.
    const resumed = new ScannerClient(h, h.account.token, ws);
    const present = await resumed.resume(id);
    expect(present.size).toBe(1200);
    // Listed in the order the frames were shown, not sorted by event id ("frame-10" before "frame-2").
    expect([...present]).toEqual(Array.from({ length: 1200 }, (_, i) => `frame-${i}.jpg`));
    const next = Array.from({ length: 1500 }, (_, i) => scanned(i)).filter((r) => !present.has(r.event_id));
    expect(next).toHaveLength(300);
    const second = await resumed.upload(id, next);
    expect(second.created).toBe(300);
    expect((await resumed.calls(id, 'run-2', 320)).status).toBe(200);

    const s = (await resumed.summary(id)).json();
    expect(s.identifications).toBe(1500);
    expect(s.distinct_cards).toBe(400);
    expect(s.total_price).toBe(750);
    expect(s.paid_calls).toBe(1250 + 320);
    expect(s.average_grade).toBeNull();
    expect(resumed.stopped).toBeNull();
    expect(client.droppedBatches + resumed.droppedBatches).toBe(0);
    expect(client.retries + blocked.retries + resumed.retries).toBe(0);
  });
});
