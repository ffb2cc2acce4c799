import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, startHarness, type Harness } from '../helpers/harness.ts';

/** A proxy serving the server under a path of its own address (`https://shop.example/loupe/`), as a shop deploys it (h112). */
describe('behind a proxy at a sub-path', () => {
  let configured: Harness;
  let forwarded: Harness;
  beforeAll(async () => {
    configured = await startHarness('sqlite', { publicUrl: 'https://shop.example/loupe' });
    forwarded = await startHarness('sqlite', { trustProxy: true });
  });
  afterAll(async () => {
    await configured?.close();
    await forwarded?.close();
  });
  const fill = async (h: Harness) => {
    const sid = await createSession(h);
    const identifications = Array.from({ length: 3 }, (_, i) => ({ event_id: `e${i}`, name: `Card ${i}` }));
    expect((await h.request('POST', `/cardstream/v2/session/${sid}/identifications/`, { body: { identifications } })).statusCode).toBe(200);
    return sid;
  };

  it('keeps the public URL\'s path in next and previous links (they dropped /loupe and 404ed at the shop\'s address)', async () => {
    const sid = await fill(configured);
    const page = (await configured.request('GET', `/cardstream/v2/identification/?session=${sid}&page_size=1&page=2`)).json() as { next: string; previous: string };
    expect(page.next).toBe(`https://shop.example/loupe/cardstream/v2/identification/?session=${sid}&page_size=1&page=3`);
    expect(page.previous).toBe(`https://shop.example/loupe/cardstream/v2/identification/?session=${sid}&page_size=1&page=1`);
  });

  it("takes a trusted proxy's X-Forwarded-Prefix into the links it hands out; a prefix that is no plain path is left out", async () => {
    const sid = await fill(forwarded);
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example', 'x-forwarded-prefix': '/loupe' };
    const page = (await forwarded.request('GET', `/cardstream/v2/identification/?session=${sid}&page_size=1`, { headers })).json() as { next: string };
    expect(page.next).toMatch(/^https:\/\/shop\.example\/loupe\/cardstream\/v2\/identification\/\?/);
    const odd = (await forwarded.request('GET', `/cardstream/v2/identification/?session=${sid}&page_size=1`, { headers: { ...headers, 'x-forwarded-prefix': '//evil.example' } })).json() as { next: string };
    expect(odd.next).toMatch(/^https:\/\/shop\.example\/cardstream\//);
    // nor one with dot segments, which collapse in a client's URL (h115)
    for (const dots of ['/%2e%2e/x', '/a/../b', '/./loupe']) {
      const page = (await forwarded.request('GET', `/cardstream/v2/identification/?session=${sid}&page_size=1`, { headers: { ...headers, 'x-forwarded-prefix': dots } })).json() as { next: string };
      expect(page.next, dots).toMatch(/^https:\/\/shop\.example\/cardstream\//);
    }
  });

  it("makes links only of a web scheme and a host's form, whatever a trusted proxy passes on (h271: javascript://evil.example/…)", async () => {
    const sid = await fill(forwarded);
    const get = (headers: Record<string, string>) => forwarded.request('GET', `/cardstream/v2/identification/?session=${sid}&page_size=1`, { headers });
    const link = async (headers: Record<string, string>) => ((await get(headers)).json() as { next: string }).next;
    expect(await link({ 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'shop.example' })).toMatch(/^http:\/\/shop\.example\/cardstream\//);
    expect(await link({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop_api:8200' })).toMatch(/^https:\/\/shop_api:8200\/cardstream\//);
    expect(await link({ 'x-forwarded-proto': 'https', 'x-forwarded-host': '[::1]:8200' })).toMatch(/^https:\/\/\[::1\]:8200\/cardstream\//);
    // a host of no host's form is refused, as before
    expect((await get({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example/x?y=' })).statusCode).toBe(400);
  });

  it("believes X-Forwarded-Prefix only from a proxy LOUPE_TRUST_PROXY lists (h115: any caller's was taken)", async () => {
    const listed = await startHarness('sqlite', { trustProxy: '10.1.2.3' });
    try {
      const sid = await fill(listed);
      // the test's requests come from 127.0.0.1, not the listed proxy: their headers are a client's
      const page = (await listed.request('GET', `/cardstream/v2/identification/?session=${sid}&page_size=1`, { headers: { 'x-forwarded-prefix': '/loupe', 'x-forwarded-host': 'evil.example' } })).json() as { next: string };
      expect(page.next).not.toContain('/loupe/');
      expect(page.next).not.toContain('evil.example');
    } finally {
      await listed.close();
    }
    const self = await startHarness('sqlite', { trustProxy: '127.0.0.1' });
    try {
      const sid = await fill(self);
      const page = (await self.request('GET', `/cardstream/v2/identification/?session=${sid}&page_size=1`, { headers: { 'x-forwarded-prefix': '/loupe' } })).json() as { next: string };
      expect(page.next).toContain('/loupe/cardstream/');
    } finally {
      await self.close();
    }
  });

  it('names the public URL as the OpenAPI server and serves /docs and the console with their files under its path', async () => {
    const doc = (await configured.request('GET', '/docs/json')).json() as { servers?: { url: string }[] };
    expect(doc.servers).toEqual([{ url: 'https://shop.example/loupe' }]);
    const ui = await configured.request('GET', '/docs', { token: null });
    expect(ui.body).toContain('/loupe/docs/static/swagger-ui-bundle.js');
    const page = await configured.request('GET', '/console', { token: null });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/src="\/loupe\/console\/assets\/index-[^"]+\.js"/);
    expect(page.body).not.toMatch(/(src|href)="\/console\//);
  });

  it("serves /docs and the console under a trusted proxy's X-Forwarded-Prefix alone: their files and Try it out under the prefix", async () => {
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example', 'x-forwarded-prefix': '/loupe' };
    const ui = await forwarded.request('GET', '/docs', { token: null, headers });
    expect(ui.body).toContain('src="/loupe/docs/static/swagger-ui-bundle.js"');
    expect(ui.body).not.toMatch(/(src|href)="\/docs\//);
    const doc = (await forwarded.request('GET', '/docs/json', { token: null, headers })).json() as { servers?: { url: string }[] };
    expect(doc.servers).toEqual([{ url: 'https://shop.example/loupe' }]);
    for (const path of ['/console', '/console/sessions']) {
      const page = await forwarded.request('GET', path, { token: null, headers: { ...headers, 'accept-encoding': 'gzip' } });
      const body = page.headers['content-encoding'] === 'gzip' ? gunzipSync(page.rawPayload).toString('utf8') : page.body;
      expect(body, path).toMatch(/src="\/loupe\/console\/assets\/index-[^"]+\.js"/);
    }
    // another prefix, and none: each its own page (none is the page as built)
    expect((await forwarded.request('GET', '/console', { token: null, headers: { ...headers, 'x-forwarded-prefix': '/shop2' } })).body).toContain('src="/shop2/console/assets/');
    expect((await forwarded.request('GET', '/console', { token: null })).body).toMatch(/src="\/console\/assets\//);
    expect((await forwarded.request('GET', '/docs', { token: null })).body).toContain('src="/docs/static/swagger-ui-bundle.js"');
    expect(((await forwarded.request('GET', '/docs/json', { token: null })).json() as { servers?: unknown }).servers).toBeUndefined();
  });
});
