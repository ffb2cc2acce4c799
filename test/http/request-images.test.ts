import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFetchLimits } from '../../src/config/config.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

/** A queued request's images (a security review: ten URLs that never answer held a queue worker 150 s, one after the other). */
describe.each(backends)("asynchronous requests' images (%s)", (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, {
      urlAllowList: ['127.0.0.1'],
      // a host that never answers fails a download in 0.3 s here
      fetch: { ...defaultFetchLimits, connectTimeoutMs: 300, totalTimeoutMs: 1_000, retries: 0 },
      vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 30_000, warm: [], embedder: '' },
      queue: { workers: 1, leaseMs: 5000, pollMs: 100 },
    });
    await h.app.ready();
  });
  afterAll(() => h?.close());

  it('are fetched all at once before the job runs (h280: four at a time), not one after the other; each failure is its record’s', async () => {
    const arrivals: number[] = [];
    const sockets = new Set<Socket>();
    const silent = http.createServer(() => {});
    silent.on('connection', (s: Socket) => {
      arrivals.push(performance.now());
      sockets.add(s);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const { token } = await h.newAccount(100);
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/card.jpg`;
      const sub = await h.request('POST', '/account/v2/request/', { token, body: { type: 'card-grader', endpoint: 'localize', records: Array.from({ length: 8 }, (_, i) => ({ _url: `${url}?${i}` })) } });
      expect(sub.statusCode, sub.body).toBe(201);
      const id = sub.json().id as string;
      let detail: { status: string; response?: { records: { _status: { code: number } }[] } } = { status: '' };
      for (let i = 0; i < 300 && detail.status !== 'DONE'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        detail = (await h.request('GET', `/account/v2/request/${id}`, { token })).json();
      }
      expect(detail.status).toBe('DONE');
      expect(detail.response!.records.map((r) => r._status.code)).toEqual(Array(8).fill(400));
      // all eight asked for at once; one after the other they came 0.3 s apart (each download's timeout), four at a
      // time the fifth 0.3 s after the first: under 0.25 s leaves a loaded machine its time
      expect(arrivals).toHaveLength(8);
      expect(arrivals[7]! - arrivals[0]!).toBeLessThan(250);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  }, 60_000);
});
