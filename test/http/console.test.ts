import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../src/http/routes/console.ts';
import { ConsoleBundle } from '../../src/services/console-bundle.ts';
import type { Services } from '../../src/services/container.ts';
import { consoleSourceHash } from '../../scripts/console-sources.ts';
import { firstLoad } from '../../scripts/console-size.ts';
import { createSession, cs, startHarness, type Harness } from '../helpers/harness.ts';
import { photoBytes, photoPath, photosDir } from '../helpers/photos.ts';

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
if (!chromium) console.warn('console browser test skipped: no Chromium (apt-get install chromium; .ci/run installs it)');
/** `npm run console:screenshots` sets this to docs/console: the same run then writes the README's pictures. */
const shotsDir = process.env.LOUPE_CONSOLE_SCREENSHOTS ? path.resolve(process.env.LOUPE_CONSOLE_SCREENSHOTS) : undefined;

const cardPhoto = 'cards/read-416032719_901419734749956_6708327569765181669_n_jpg.rf.6fc7207f060c960502cef148cb233d25.jpg';
const gradePhoto = 'cards/single-1730719045_jpg.rf.1f3c834b3218eeabaaeb134c11f2a614.jpg';
/** A browser round trip (a PATCH, a re-render) can take more than expect.poll's default second while the whole suite runs. */
const SLOW = { timeout: 10_000 };
/** A step's own limit, under the test's 30 s: a step that never comes names its line, not just the test. */
const STEP = { timeout: 10_000 };

describe('web console (/console): the built bundle', () => {
  it('is built from the sources in the checkout (npm run console:build after changing console/)', () => {
    const built = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../console/dist/build.json'), 'utf8')) as { sources: string };
    expect(built.sources, 'console/dist is stale: run npm run console:build and commit console/dist').toBe(consoleSourceHash());
  });

  it('loads in at most 300 KB of compressed JavaScript and CSS', async () => {
    const size = await firstLoad();
    expect(size.files.some((f) => f.name.endsWith('.js'))).toBe(true);
    expect(size.gzip).toBeLessThan(300 * 1024);
  });

  it('is served compressed, under its content security policy, with hashed assets immutable and deep links answered by the page', async () => {
    const app = Fastify();
    await app.register(consoleRoutes);
    try {
      // the server's own address leads to the console, relatively, so a proxy's prefix stays (h260: a JSON 404)
      const root = await app.inject({ url: '/' });
      expect([root.statusCode, root.headers.location]).toEqual([302, 'console']);
      // and to the console under the path the server knows it is served at (h263: `/loupe` without its slash led to `/console`)
      const under = Fastify();
      await under.register(consoleRoutes, { basePath: () => '/loupe' });
      expect((await under.inject({ url: '/' })).headers.location).toBe('/loupe/console');
      await under.close();
      const page = await app.inject({ url: '/console/sessions/anything', headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-encoding']).toBe('br');
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      const html = brotliDecompressSync(page.rawPayload).toString();
      const js = /src="\/console\/(assets\/[^"]+\.js)"/.exec(html)![1]!;
      const asset = await app.inject({ url: `/console/${js}`, headers: { 'accept-encoding': 'gzip' } });
      expect(asset.headers['content-encoding']).toBe('gzip');
      expect(asset.headers['content-type']).toMatch(/javascript/);
      expect(asset.headers['cache-control']).toContain('immutable');
      expect(gunzipSync(asset.rawPayload).equals(fs.readFileSync(path.resolve(import.meta.dirname, '../../console/dist', js)))).toBe(true);
      const plain = await app.inject({ url: '/console' });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toContain('<div id="app">');
      expect((await app.inject({ url: '/console/assets/gone-123.js' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
    const unbuilt = Fastify();
    await unbuilt.register(consoleRoutes, { bundle: ConsoleBundle.load(path.join(os.tmpdir(), 'no-console-here')) });
    const res = await unbuilt.inject({ url: '/console' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'console_not_built' });
    await unbuilt.close();
  });
});

/**
 * The console in headless Chromium against a real server: every page a shop owner uses, through the
 * public API only (the test seeds data through the API as a client would, and catalogs and
 * collections through the services as the operator's CLI does).
 */
describe.skipIf(!chromium)('web console (/console) in a real browser', () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let page: Page;
  let images: http.Server;
  let imagesBase: string;
  let catalogDir: string;
  let sessionId: string;
  let bigSessionId: string;
  let collectionId: string;
  /** Tabs opened now have Playwright's clock installed (the tests of a live session's polling, below). */
  let pollingClock = false;

  const shot = async (name: string) => {
    if (!shotsDir) return;
    await fsp.mkdir(shotsDir, { recursive: true });
    await page.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage: false });
  };

  beforeAll(async () => {
    // Photos for the collection's records, served as a shop's own image host would (records keep `_url`s).
    images = http.createServer((req, res) => {
      const rel = decodeURIComponent((req.url ?? '').slice(1));
      const file = path.resolve(photosDir, rel);
      if (!file.startsWith(photosDir) || !fs.existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(fs.readFileSync(file));
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imagesBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;

    h = await startHarness('sqlite', {
      vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 60_000, warm: [], embedder: '' },
      queue: { workers: 1, pollMs: 100 },
      urlAllowList: ['127.0.0.1'],
    });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;

    // A small trading-card catalog with prices, as collectibles.test.ts makes it.
    catalogDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-console-'));
    const sets = [
      { id: 'tsa', name: 'Test Alpha', series: 'Testing', printedTotal: 198, total: 258, releaseDate: '2023/03/31', ptcgoCode: 'SVI' },
      { id: 'tsb', name: 'Test Beta', series: 'Testing', printedTotal: 198, total: 233, releaseDate: '2021/06/18', ptcgoCode: 'CRE' },
    ];
    const cards = [
      { id: 'tsa-86', name: 'Alphamon', number: '086', set: 'tsa', rarity: 'Common', supertype: 'Pokémon', subtypes: ['Basic'], hp: '70', types: ['Water'] },
      { id: 'tsb-86', name: 'Betamon', number: '086', set: 'tsb', rarity: 'Uncommon', supertype: 'Pokémon', subtypes: ['Stage 1'], hp: '90', types: ['Fire'] },
    ];
    await fsp.writeFile(path.join(catalogDir, 'cards.json'), JSON.stringify(cards));
    await fsp.writeFile(path.join(catalogDir, 'sets.json'), JSON.stringify(sets));
    const services = h.app.loupe as unknown as Services;
    await services.catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(catalogDir, 'cards.json'), sets: path.join(catalogDir, 'sets.json') } });
    const header = 'pokemon_card_id,tcgplayer_product_id,product_type,name,set_code_source,window_start,window_end,market_price_usd,volume,scraped_at,year_corrected,duplicates_dropped';
    const priceRows = [['2025-01-06', '2025-01-08', '1.50'], ['2025-03-01', '2025-03-03', '2.50'], ['2025-04-26', '2025-04-28', '2.00'], ['2025-05-01', '2025-05-03', '3.00'], ['2025-05-06', '2025-05-08', '4.00']].map(([a, b, p]) => `tsa-86,900086,Card,Alphamon,SVI,${a},${b},${p},2,2025-07-24 22:00:50,False,0`);
    await fsp.writeFile(path.join(catalogDir, 'prices.csv'), [header, ...priceRows].join('\n') + '\n');
    await services.catalogs.importPrices({ catalog: 'pokemon', file: path.join(catalogDir, 'prices.csv') });

    // A session as a scanner app leaves it: rows, one with an image and alternatives.
    sessionId = await createSession(h, { name: 'Friday stream', game: 'TCG' });
    const rows = [
      { event_id: 'e1', name: 'Charmander', set_name: 'Base Set', card_number: '46', price: 4.5, alternatives: [{ name: 'Charmeleon', set: 'Base Set', card_number: '24' }], grading: { endpoint: 'grade', grades: { final: 8.5, condition: 'Mint' } } },
      { event_id: 'e2', name: 'Pikachu', set_name: 'Jungle', card_number: '60', price: 2, distance: 0.22, confidence: 'Low' },
      { event_id: 'e3', name: 'Gengar', set_name: 'Fossil', card_number: '5', price: 30.25 },
    ];
    expect((await h.request('POST', cs(`session/${sessionId}/identifications/`), { body: { identifications: rows } })).statusCode).toBe(200);
    const img = photoBytes(gradePhoto).toString('base64');
    expect((await h.request('POST', cs(`session/${sessionId}/images/`), { body: { event_id: 'e1', image: img } })).statusCode).toBe(200);

    // 5,000 rows for the scrolling check: ten batches of 500, as the scanner app sends them.
    bigSessionId = await createSession(h, { name: 'Binder marathon', game: 'TCG' });
    for (let b = 0; b < 10; b++) {
      const batch = Array.from({ length: 500 }, (_, i) => ({ event_id: `big-${b * 500 + i}`, name: `Card ${b * 500 + i}`, set_name: 'Bulk', card_number: String(b * 500 + i), price: 0.25 }));
      expect((await h.request('POST', cs(`session/${bigSessionId}/identifications/`), { body: { identifications: batch } })).statusCode).toBe(200);
    }

    collectionId = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'photo', name: 'shop photos' })).id;
    const records = [
      ['leopard-1', 'caltech101/Leopards/image_0001.jpg', 12.5],
      ['leopard-2', 'caltech101/Leopards/image_0002.jpg', 30],
      ['plane-1', 'caltech101/airplanes/image_0001.jpg', 99],
      ['watch-1', 'caltech101/watch/image_0001.jpg', 5],
    ].map(([id, rel, price]) => ({ _id: id, _url: `${imagesBase}/${rel as string}`, price }));
    const inserted = await h.request('POST', '/similarity/photos/v2/insert', { body: { records }, headers: { 'collection-id': collectionId } });
    expect(inserted.json().status.code, inserted.body).toBe(210);

    browser = await launch();
    page = await openPage();
  }, 180_000);

  const launch = async () => {
    const { chromium: pw } = await import('playwright-core');
    return pw.launch({ executablePath: chromium, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  };

  /** A tab with the trail's listeners: the first, and a fresh one after a test that failed (below). */
  const openPage = async (): Promise<Page> => {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    // the tests of a live session's polling: the page's clock, running as the real one, moved on to the next poll
    // (nextPoll below) instead of waiting its 4 s
    if (pollingClock) await tab.clock.install();
    // under the tests' own limits, so a step that waits in vain fails on its line with the page's trail (below)
    tab.setDefaultTimeout(20_000);
    tab.on('pageerror', (err) => console.error('console page error:', err));
    // What the page met, printed only when a test fails: a step that waits in vain says why (CI once timed out here without a clue).
    tab.on('response', (res) => {
      if (res.status() >= 400) trail.push(`${res.status()} ${res.request().method()} ${res.url().replace(base, '')}`);
    });
    tab.on('requestfailed', (req) => trail.push(`failed ${req.method()} ${req.url().replace(base, '')}: ${req.failure()?.errorText ?? ''}`));
    tab.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') trail.push(`console ${msg.type()}: ${msg.text()}`);
    });
    tab.on('framenavigated', (frame) => {
      if (frame === tab.mainFrame()) trail.push(`at ${frame.url().replace(base, '')}`);
    });
    tab.on('crash', () => trail.push('the page crashed'));
    return tab;
  };

  /** Within `ms`, or `undefined`: a step on a page whose renderer is stuck never answers. */
  const within = <T,>(ms: number, work: Promise<T>) =>
    Promise.race([work, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref())]);

  /** A fresh tab signed in, on the console's start. */
  const signedInTab = async () => {
    const tab = await openPage();
    await tab.goto(`${base}/console`);
    await tab.evaluate((token) => sessionStorage.setItem('loupe.token', token), h.account.token);
    await tab.reload();
    return tab;
  };

  const trail: string[] = [];
  afterEach(async (ctx) => {
    if (!page) return;
    if (ctx.task.result?.state !== 'fail') {
      // What a test set up and left behind goes with it: a `page.once('dialog')` no dialog came for would answer a later
      // test's question (with no listener Playwright dismisses it), and a route or request listener would go on
      // intercepting or counting in every test after it.
      page.removeAllListeners('dialog');
      page.removeAllListeners('request');
      await within(5_000, page.unrouteAll({ behavior: 'ignoreErrors' }).catch(() => undefined));
      trail.length = 0;
      return;
    }
    const text = (await within(5_000, page.evaluate(() => document.body.innerText.slice(0, 1500)).catch((err: unknown) => String(err)))) ?? "(the page's renderer did not answer within 5 s: a script that never yields, or a dialog left open)";
    console.error(`console test "${ctx.task.name}" failed at ${page.url().replace(base, '')}\nwhat the page met:\n  ${trail.slice(-40).join('\n  ')}\nthe page's text:\n${text}`);
    trail.length = 0;
    // The next test starts from a fresh tab signed in again: CI once saw every later test time out on a tab that no
    // longer answered (stop 87, 12 tests after one failure), which hid which failure came first.
    const stale = page;
    // every listener: a tab that does not close keeps feeding the trail of the tests after it otherwise
    stale.removeAllListeners();
    await within(10_000, stale.unrouteAll({ behavior: 'ignoreErrors' }).catch(() => undefined));
    await within(10_000, stale.close({ runBeforeUnload: false }).catch(() => undefined));
    const fresh = await within(25_000, signedInTab().catch(() => undefined));
    if (fresh) {
      page = fresh;
      return;
    }
    // Chromium itself no longer answers (no tab opens, or none loads the console): started again, so one stall is
    // one test's failure and not every later test's.
    console.error('console test: Chromium opened no working tab within 25 s after the failure; it is started again');
    const stuck = browser;
    await within(10_000, stuck.close().catch(() => undefined));
    // bounded, and `page` replaced only by a tab that works: a hook that throws here would leave the closed tab to every
    // later test, the cascade this is for
    const restarted = await within(30_000, launch().catch(() => undefined));
    if (!restarted) return;
    browser = restarted;
    const again = await within(40_000, signedInTab().catch(() => undefined));
    if (again) page = again;
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
    images?.close();
    if (catalogDir) await fsp.rm(catalogDir, { recursive: true, force: true });
  });

  it('signs in with a token and shows the workspace, credits and services', async () => {
    await page.goto(`${base}/console`);
    await page.getByLabel('API token').fill('lp_not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), SLOW).toMatch(/does not know this token/);
    await shot('sign-in');
    await page.getByLabel('API token').fill(h.account.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('credits').waitFor();
    expect(await page.getByTestId('workspace').getAttribute('title')).toBe(h.account.workspace);
    const credits = (await h.app.loupe.accounts.getAccount(h.account.account)).credits;
    expect(await page.getByTestId('credits').textContent()).toBe(String(credits));
    // the services in the pages' words, the API's names in the title for a developer
    const services = (await page.getByTestId('services').textContent())!.split(', ');
    expect(services).toEqual(expect.arrayContaining(['Sessions', 'Recognition', 'Image descriptors', 'Face and person detection', 'Image matching', 'Grading', 'Search']));
    const apiNames = (await page.getByTestId('services').getAttribute('title'))!.replace(/^API services: /, '').split(', ');
    expect(apiNames).toEqual(expect.arrayContaining(['cardstream', 'collectibles', 'descriptor', 'identity', 'image_matching', 'requests', 'visual_search']));
    expect(await page.getByTestId('workspace').textContent()).toBe('default');
    // The token lives in this tab's session storage and nowhere else.
    expect(await page.evaluate(() => [sessionStorage.getItem('loupe.token'), localStorage.length])).toEqual([h.account.token, 0]);
  });

  it('lists sessions with search, opens one and corrects a row inline through PATCH', async () => {
    await page.getByRole('link', { name: 'Friday stream' }).waitFor();
    await page.getByPlaceholder('Search name, game, platform…').fill('binder');
    await expect.poll(() => page.locator('table.list tbody tr').count(), SLOW).toBe(1);
    await page.getByPlaceholder('Search name, game, platform…').fill('');
    await expect.poll(() => page.locator('table.list tbody tr').count(), SLOW).toBe(2);
    await shot('sessions');
    await page.getByRole('link', { name: 'Friday stream' }).click();
    await page.locator('[data-event-id="e1"]').waitFor();
    expect(await page.locator('.card').count()).toBe(3);
    // the session's heading has the focus once it is drawn, and the tab is named for the session (h219: the focus was
    // lost while "Loading session…" showed, and every session's tab was "Session · Loupe console")
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), SLOW).toBe('session-title');
    // the tab's title is set in an effect after the heading takes the focus: read once it has run (one run in six here read it before)
    await expect.poll(() => page.title(), SLOW).toBe('Friday stream · Session · Loupe console');
    // the card recognition was not sure of says so in the grid
    expect(await page.locator('[data-event-id="e2"] .tag', { hasText: 'check' }).count()).toBe(1);
    expect(await page.locator('[data-event-id="e3"] .tag', { hasText: 'check' }).count()).toBe(0);
    // beside Export CSV, until when the file's photo links work: the time the first of them expires (h326)
    const firstExpiry = await page.evaluate(() => Math.min(...[...document.querySelectorAll<HTMLImageElement>('.card img')].map((i) => Number(/expires=(\d+)/.exec(i.src)?.[1] ?? Infinity))));
    expect(Number.isFinite(firstExpiry) && firstExpiry * 1000 - Date.now()).toBeGreaterThan(50 * 60_000);
    // the time alone where the links end today, with the date after midnight (a run in the last hour of the day failed)
    await expect.poll(() => page.getByTestId('csv-links').textContent(), SLOW).toMatch(/^Photo links in the CSV work until (?:[A-Z][a-z]{2} \d{1,2}, \d{4}, )?\d{1,2}:\d{2}.*; Refresh renews them\.$/);
    expect(await page.getByRole('button', { name: 'Export CSV' }).getAttribute('aria-describedby')).toBe('csv-links');
    await page.locator('[data-event-id="e1"]').click();
    // the photo opens full size a tap away (on a phone the panel shows it 160 px high, h203)
    await page.locator('img.big').waitFor(SLOW);
    expect(await page.locator('a:has(img.big)').getAttribute('href')).toMatch(/\/media\//);
    expect(await page.locator('a:has(img.big)').getAttribute('target')).toBe('_blank');
    const editor = page.getByRole('form', { name: 'Correct this card' });
    await editor.getByLabel('name', { exact: true }).fill('Charmander (1st edition)');
    await editor.getByLabel('price (USD)').fill('12');
    await editor.getByRole('button', { name: 'Save correction' }).click();
    await expect.poll(() => page.locator('[data-event-id="e1"] .card-name').textContent(), SLOW).toBe('Charmander (1st edition)');
    const row = (await h.request('GET', cs(`identification/?session=${sessionId}&event_id=e1`))).json().results[0];
    expect(row).toMatchObject({ name: 'Charmander (1st edition)', price: 12, corrected: true });
    await expect.poll(() => page.locator('.stat', { hasText: 'Total' }).textContent(), SLOW).toContain('$44.25');
    await shot('session');
    // an alternative picked with "Use this" fills the form too, so a save after it does not send the old card back
    // each alternative's button is named for its card (a screen reader heard "Use this" alone), after the words shown
    // (WCAG 2.5.3: it was "Use Charmeleon", h219)
    // asked first (one click replaced a priced card with no undo); what the alternative lacks is cleared, not kept from the card it replaces
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: /^Use this ?: Charmeleon$/ }).click();
    await expect.poll(() => editor.getByLabel('name', { exact: true }).inputValue(), SLOW).toBe('Charmeleon');
    await editor.getByRole('button', { name: 'Save correction' }).click();
    await page.getByText('Nothing changed.').waitFor();
    expect((await h.request('GET', cs(`identification/?session=${sessionId}&event_id=e1`))).json().results[0]).toMatchObject({ name: 'Charmeleon', card_number: '24', full_name: null, price: 12 });
    // and the card as recognised comes back with Restore
    await page.getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => editor.getByLabel('name', { exact: true }).inputValue(), SLOW).toBe('Charmander');
    expect((await h.request('GET', cs(`identification/?session=${sessionId}&event_id=e1`))).json().results[0]).toMatchObject({ name: 'Charmander', card_number: '46', set_name: 'Base Set', price: 4.5 });
    // sold and a note, as the API takes them; a price in hex is refused, not read as 16
    await editor.getByLabel('price (USD)').fill('0x10');
    await editor.getByRole('button', { name: 'Save correction' }).click();
    await page.getByText(/Price must be a number of US dollars such as 12/).waitFor();
    // the error is the price field's, for a screen reader too (h166: said aloud, tied to no field)
    expect(await editor.getByLabel('price (USD)').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await editor.getByLabel('price (USD)').getAttribute('aria-describedby')}`).textContent()).toMatch(/^Price must be a number/);
    await editor.getByLabel('price (USD)').fill('12');
    await editor.getByLabel('sold').check();
    await editor.getByLabel('note').fill('Binder page 3');
    await editor.getByRole('button', { name: 'Save correction' }).click();
    await page.locator('[data-event-id="e1"] .tag', { hasText: 'sold' }).waitFor();
    expect((await h.request('GET', cs(`identification/?session=${sessionId}&event_id=e1`))).json().results[0]).toMatchObject({ sold: true, note: 'Binder page 3', price: 12 });
    // the list keeps its search in the address, so Back and a reload return to it
    await page.goto(`${base}/console#/sessions?q=binder`);
    await expect.poll(() => page.locator('table.list tbody tr').count(), SLOW).toBe(1);
    expect(await page.getByPlaceholder('Search name, game, platform…').inputValue()).toBe('binder');
    await page.goto(`${base}/console#/sessions/${sessionId}`);
  }, 90_000);

  it('asks before throwing typed corrections away, and a session create retried after a lost answer makes one session (h97)', async () => {
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await page.locator('[data-event-id="e2"]').waitFor();
    // the drawer has the keyboard as soon as it is drawn, not a frame later: a focus moved late took the note
    // being typed into the card's name (CI under load)
    const focusedAfterRender = async (act: string) =>
      page.evaluate(async (act) => {
        if (act === 'open') document.querySelector<HTMLElement>('[data-event-id="e2"]')!.click();
        else {
          const moved = new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));
          location.hash = act;
          await moved;
        }
        for (let i = 0; i < 5; i++) await Promise.resolve();
        const el = document.activeElement as HTMLElement | null;
        return el?.getAttribute('name') ?? el?.tagName ?? '';
      }, act);
    expect(await focusedAfterRender('#/grading')).toBe('H1');
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await page.locator('[data-event-id="e2"]').waitFor();
    expect(await focusedAfterRender('open')).toBe('name');
    const editor = page.getByRole('form', { name: 'Correct this card' });
    await editor.getByLabel('note').fill('typed, not saved');
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await page.locator('[data-event-id="e3"]').click();
    await expect.poll(() => asked, SLOW).toMatch(/^Discard the changes you typed/);
    expect(await editor.getByLabel('note').inputValue()).toBe('typed, not saved');
    // leaving the page by a link asks too; kept, the page stays with its address and the text
    asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    const entries = await page.evaluate(() => history.length);
    await page.getByRole('link', { name: '← Sessions' }).click();
    await expect.poll(() => asked, SLOW).toMatch(/^Discard the changes you typed/);
    expect(await page.evaluate(() => location.hash)).toBe(`#/sessions/${sessionId}`);
    expect(await editor.getByLabel('note').inputValue()).toBe('typed, not saved');
    // refused before the address moved: no entry made for Back to stumble on (h124)
    expect(await page.evaluate(() => history.length)).toBe(entries);
    // Back, refused: the page stays; Back again, accepted: the page Back reached before (its entry was overwritten, h124)
    const dismissOnce = () => {
      asked = '';
      page.once('dialog', (d) => {
        asked = d.message();
        void d.dismiss();
      });
    };
    dismissOnce();
    await page.evaluate(() => history.back());
    await expect.poll(() => asked, SLOW).toMatch(/^Discard the changes you typed/);
    await expect.poll(() => page.evaluate(() => location.hash), SLOW).toBe(`#/sessions/${sessionId}`);
    expect(await editor.getByLabel('note').inputValue()).toBe('typed, not saved');
    // switching workspace and signing out ask too (the one threw the text away unasked, the other asked too late, h124)
    dismissOnce();
    await page.getByRole('button', { name: 'Switch workspace' }).click();
    await page.getByRole('button', { name: 'Use' }).click();
    await expect.poll(() => asked, SLOW).toMatch(/^Discard the changes you typed/);
    await page.keyboard.press('Escape');
    dismissOnce();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => asked, SLOW).toMatch(/^Discard the changes you typed/);
    expect(await editor.getByLabel('note').inputValue()).toBe('typed, not saved');
    expect(await page.evaluate(() => location.hash)).toBe(`#/sessions/${sessionId}`);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Hide the card' }).click();
    await expect.poll(() => page.getByRole('form', { name: 'Correct this card' }).count(), SLOW).toBe(0);
    // the first create reaches the server, its answer is lost on the way back; pressed again, the same session comes back
    await page.goto(`${base}/console#/sessions`);
    const count = async () => (await h.request('GET', cs('session/?page_size=500'))).json().count as number;
    const before = await count();
    let lost = false;
    await page.route('**/cardstream/v2/session/', async (route) => {
      if (route.request().method() !== 'POST' || lost) return route.continue();
      lost = true;
      await route.fetch();
      await route.abort('connectionreset');
    });
    try {
      await page.getByText('New session').click();
      await page.getByLabel('Name', { exact: true }).fill('Card show Sunday');
      await page.getByRole('button', { name: 'Create (1 credit)' }).click();
      await expect.poll(() => lost, SLOW).toBe(true);
      await page.getByRole('button', { name: 'Create (1 credit)' }).click();
      await expect.poll(() => page.evaluate(() => location.hash), SLOW).toMatch(/^#\/sessions\/[0-9a-f-]{36}$/);
    } finally {
      await page.unroute('**/cardstream/v2/session/');
    }
    expect(await count()).toBe(before + 1);
    // the new session's heading takes the focus (h219: Create was gone, and the focus with it)
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), SLOW).toBe('session-title');
    await expect.poll(() => page.title(), SLOW).toBe('Card show Sunday · Session · Loupe console');
  }, 90_000);

  it("sends only the fields typed in the form, not a field the phone changed since it was filled (h99)", async () => {
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await page.locator('[data-event-id="e3"]').click();
    const editor = page.getByRole('form', { name: 'Correct this card' });
    await editor.getByLabel('name', { exact: true }).waitFor();
    // the phone notes the card while the form is open; the page's live refresh brings it in
    expect((await h.request('POST', cs(`session/${sessionId}/identifications/`), { body: { identifications: [{ event_id: 'e3', note: 'phone: in binder 2' }] } })).statusCode).toBe(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await editor.getByLabel('name', { exact: true }).fill('Squirtle (shadowless)');
    const sent: string[] = [];
    page.on('request', (r) => void (r.method() === 'PATCH' && sent.push(r.postData() ?? '')));
    await editor.getByRole('button', { name: 'Save correction' }).click();
    await page.getByText('Saved.').waitFor(SLOW);
    // the first against the row as the form was filled (If-Match), refused as the note came since; then on top of it
    expect(sent.map((b) => JSON.parse(b))).toEqual([{ name: 'Squirtle (shadowless)' }, { name: 'Squirtle (shadowless)' }]);
    await expect.poll(async () => (await h.request('GET', cs(`identification/?session=${sessionId}&event_id=e3`))).json().results[0].note, SLOW).toBe('phone: in binder 2');
    // a note typed while a save is on its way keeps its text and the keyboard (the answer put the saved note back
    // and took the focus to the name)
    await page.getByText('Saved.').waitFor();
    // typing again: "Saved." no longer says what the form shows (h240)
    const noteField = page.getByRole('form', { name: 'Correct this card' }).getByLabel('note', { exact: true });
    const saved = await noteField.inputValue();
    await noteField.fill(`${saved} `);
    await expect.poll(() => page.getByText('Saved.').count(), SLOW).toBe(0);
    await noteField.fill(saved);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/cardstream/v2/identification/*/', async (route) => {
      if (route.request().method() === 'PATCH') await held;
      await route.continue();
    });
    try {
      await editor.getByLabel('price (USD)').fill('3');
      await editor.getByRole('button', { name: 'Save correction' }).click();
      await editor.getByRole('button', { name: 'Saving…' }).waitFor();
      await editor.getByLabel('note').fill('typed while saving');
      release();
      await page.getByText('Saved.').waitFor();
      expect(await editor.getByLabel('note').inputValue()).toBe('typed while saving');
      expect(await editor.getByLabel('price (USD)').inputValue()).toBe('3');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('note');
    } finally {
      // a step that failed before release() left the PATCH held in the route for good
      release();
      await page.unroute('**/cardstream/v2/identification/*/');
    }
    expect((await h.request('GET', cs(`identification/?session=${sessionId}&event_id=e3`))).json().results[0]).toMatchObject({ price: 3, note: 'phone: in binder 2' });
    // still typed, not saved: Hide asks
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Hide the card' }).click();
    await expect.poll(() => page.getByRole('form', { name: 'Correct this card' }).count(), SLOW).toBe(0);
  }, 90_000);

  it('signs in with one call: the ping says which services the account may use (h260: seven refused calls at each sign-in; h97: no round trip after it)', async () => {
    const asked: string[] = [];
    const seen = (r: { url(): string }) => void asked.push(new URL(r.url()).pathname);
    page.on('request', seen);
    try {
      await page.reload();
      await page.getByTestId('services').waitFor();
    } finally {
      page.off('request', seen);
    }
    const api = asked.filter((p) => !p.startsWith('/console'));
    expect(api).toContain('/cardstream/v2/ping/');
    for (const probe of ['/image_matching/v2/ping', '/similarity/photos/v2/ping', '/account/v2/request/', '/collectibles/v2/tcg_id', '/photo/v2/descriptor', '/identity/v2/face']) expect(api).not.toContain(probe);
  }, 60_000);

  it('keeps a session id from the address inside its path: a crafted link reaches no other API path (h185)', async () => {
    const paths: string[] = [];
    const seen = (r: { url(): string }) => void paths.push(new URL(r.url()).pathname + new URL(r.url()).search);
    page.on('request', seen);
    try {
      await page.goto(`${base}/console#/sessions/..%2Fsession%3F`);
      await page.getByText(/not found/i).first().waitFor();
    } finally {
      page.off('request', seen);
    }
    const api = paths.filter((p) => p.startsWith('/cardstream/'));
    expect(api.length).toBeGreaterThan(0);
    // the id travels encoded, one segment: never the session list (`session?/`) read as a session
    expect(api.filter((p) => /\/cardstream\/v2\/session\/?(\?|$)/.test(p))).toEqual([]);
    expect(api.some((p) => p.includes('..%2Fsession%3F'))).toBe(true);
  }, 60_000);

  it('follows an address changed while the console starts, before its listener is attached (CI, stop 89: the 5,000-card session opened on a fresh tab stayed on the session list)', async () => {
    const tab = await openPage();
    try {
      // the tab's timers and frames held: the console's first render is drawn, its effects (the address's listener
      // among them) wait on a frame, as on a loaded machine between a page's load and its next frame
      await tab.clock.install();
      await tab.goto(`${base}/console`);
      await tab.evaluate((token) => sessionStorage.setItem('loupe.token', token), h.account.token);
      await tab.clock.pauseAt(Date.now() + 60_000);
      await tab.reload();
      await tab.getByText('Loading…').waitFor(STEP);
      await tab.evaluate((id) => void (location.hash = `#/sessions/${id}`), sessionId);
      await tab.clock.resume();
      await tab.locator('[data-event-id="e1"]').waitFor(STEP);
      expect(await tab.locator('#session-title').textContent()).toBe('Friday stream');
      // the list still writes its search into every address that shows it (a typed `#/` kept it out, so a reload lost it)
      for (const start of ['#/', '#/sessions/']) {
        await tab.evaluate((hash) => void (location.hash = hash), start);
        await tab.getByRole('link', { name: 'Friday stream' }).waitFor(STEP);
        await tab.getByPlaceholder('Search name, game, platform…').fill('binder');
        await expect.poll(() => tab.evaluate(() => location.hash), SLOW).toBe('#/sessions?q=binder');
        await tab.getByPlaceholder('Search name, game, platform…').fill('');
        await expect.poll(() => tab.evaluate(() => location.hash), SLOW).toBe('#/sessions');
      }
    } finally {
      tab.removeAllListeners();
      await within(10_000, tab.close({ runBeforeUnload: false }).catch(() => undefined));
    }
  }, 45_000);

  /**
   * A live session's page reads it again every 4 s (console/src/pages/session.tsx): its clock moved on to that tick now.
   * A tick that finds the last read still on its way is skipped, as ever, and the next comes 4 s on.
   */
  const nextPoll = () => page.clock.fastForward(4_000);

  /**
   * The page at `hash` as a fresh load leaves it, on the token's own workspace whatever a test before chose (the tab's
   * session storage, the token in it, stays). Loaded from a blank page, not moved to `hash` and reloaded: from the
   * console's own document that move is a fragment navigation, and Playwright's goto ends on the first same-document
   * navigation the frame makes, the page's own included. The session list writing its address then (replaceState to
   * `#/sessions`, once its first answer is in) ended the goto before the address had moved, and the reload sent at
   * once could reload the list's address instead (the clock-driven tab's first test, one full-file run in seven).
   */
  const openFresh = async (hash: string) => {
    await page.evaluate(() => sessionStorage.removeItem('loupe.workspace'));
    await page.goto('about:blank');
    await page.goto(`${base}/console${hash}`);
  };

  it('opens the address a test asks for while the page writes its own (openFresh: the list replacing its address ended a hash-only goto early, and the reload after it lost the session asked for)', async () => {
    const tab = await signedInTab();
    const current = page;
    try {
      // the list's write of its own address, made every millisecond rather than once as the console starts: the moment
      // a test moves on from the list is always inside one
      await tab.addInitScript(() => {
        setInterval(() => {
          if (/^(#\/?)?(sessions\/?)?$/.test(location.hash)) history.replaceState(null, '', '#/sessions');
        }, 1);
      });
      page = tab;
      for (let i = 0; i < 8; i++) {
        await openFresh('#/sessions');
        await openFresh(`#/sessions/${sessionId}`);
        expect(await tab.evaluate(() => location.hash), `try ${i}`).toBe(`#/sessions/${sessionId}`);
      }
      await tab.locator('[data-event-id="e1"]').waitFor(STEP);
    } finally {
      page = current;
      tab.removeAllListeners();
      await within(10_000, tab.close({ runBeforeUnload: false }).catch(() => undefined));
    }
  }, 45_000);

  // Retried once: CI saw this test time out once (2026-11-30) where it never fails here, now with the page's trail printed.
  it('switches to another workspace of the account and back', { retry: 1 }, async () => {
    const { workspace } = await h.app.loupe.accounts.addWorkspace(h.account.account, 'second shop');
    await openFresh('#/sessions');
    await page.getByRole('link', { name: 'Friday stream' }).waitFor(STEP);
    await page.getByRole('button', { name: 'Switch workspace' }).click();
    // the field takes the keyboard (h138: it fell to the page's start), and its error is tied to it
    expect(await page.evaluate(() => document.activeElement?.getAttribute('placeholder'))).toBe('workspace id (empty: default)');
    await page.getByLabel('Workspace id').fill('00000000-0000-4000-8000-000000000000');
    await page.getByRole('button', { name: 'Use' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), SLOW).toMatch(/No workspace of this account/);
    expect(await page.getByLabel('Workspace id').getAttribute('aria-describedby')).toBe('workspace-error');
    // Cancel gives the focus back to the switch
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Switch workspace');
    await page.getByRole('button', { name: 'Switch workspace' }).click();
    await page.getByLabel('Workspace id').fill(workspace);
    await page.getByRole('button', { name: 'Use' }).click();
    await expect.poll(() => page.getByTestId('workspace').getAttribute('title'), SLOW).toBe(workspace);
    await page.getByText('No sessions yet.').waitFor(STEP);
    await page.getByRole('button', { name: 'Switch workspace' }).click();
    expect(await page.getByLabel('Workspace id').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Use' }).click();
    await expect.poll(() => page.getByTestId('workspace').getAttribute('title'), SLOW).toBe(h.account.workspace);
    await page.getByRole('link', { name: 'Friday stream' }).waitFor(STEP);
    // switched from a session's page: the sessions of the workspace chosen, not "Session … not found" (h157)
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await page.getByRole('heading', { name: /Friday stream/ }).waitFor(STEP);
    await page.getByRole('button', { name: 'Switch workspace' }).click();
    await page.getByLabel('Workspace id').fill(workspace);
    await page.getByRole('button', { name: 'Use' }).click();
    await page.getByText('No sessions yet.').waitFor(STEP);
    expect(await page.evaluate(() => location.hash)).toBe('#/sessions');
    await page.getByRole('button', { name: 'Switch workspace' }).click();
    await page.getByLabel('Workspace id').fill('');
    await page.getByRole('button', { name: 'Use' }).click();
    await page.getByRole('link', { name: 'Friday stream' }).waitFor(STEP);
    // Leaving a large session while its pages still load must not leave its cards on the next one.
    await page.goto(`${base}/console#/sessions/${bigSessionId}`);
    await page.getByRole('heading', { name: /Binder marathon/ }).waitFor(STEP);
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await page.getByRole('heading', { name: /Friday stream/ }).waitFor(STEP);
    await page.locator('[data-event-id="e1"]').waitFor(STEP);
    expect(await page.locator('[data-event-id^="big-"]').count()).toBe(0);
  });

  it('keeps a correction saved while a refresh is on its way (h254: the older list put the old name back, in the grid and the CSV)', async () => {
    await openFresh(`#/sessions/${sessionId}`);
    await page.locator('[data-event-id="e2"]').click();
    const editor = page.getByRole('form', { name: 'Correct this card' });
    await editor.getByLabel('name', { exact: true }).waitFor();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let listed = 0;
    // the list read by the server now and answered late: as it was before the save
    await page.route('**/cardstream/v2/identification/?session=*', async (route) => {
      listed++;
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    try {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect.poll(() => listed, SLOW).toBe(1);
      await page.waitForTimeout(300);
      await editor.getByLabel('name', { exact: true }).fill('Bulbasaur (corrected)');
      await editor.getByRole('button', { name: 'Save correction' }).click();
      await page.getByText('Saved.').waitFor();
      const answered = page.waitForResponse((r) => r.url().includes('/cardstream/v2/identification/?session='));
      release();
      await answered;
      await page.waitForTimeout(500);
      expect(await page.locator('[data-event-id="e2"] .card-name').textContent()).toBe('Bulbasaur (corrected)');
    } finally {
      release();
      await page.unroute('**/cardstream/v2/identification/?session=*');
    }
  }, 45_000);

  it('saves a correction on top of a change made meanwhile elsewhere, unless that change was to a field it sends (If-Match)', async () => {
    await openFresh(`#/sessions/${sessionId}`);
    await page.locator('[data-event-id="e3"]').click();
    const editor = page.getByRole('form', { name: 'Correct this card' });
    await editor.getByLabel('name', { exact: true }).waitFor();
    const e3 = async () => (await h.request('GET', cs(`identification/?session=${sessionId}&event_id=e3`))).json().results[0];
    const id = (await e3()).id as string;
    // the phone corrects the set while the note is typed here: both stand
    expect((await h.request('PATCH', cs(`identification/${id}/`), { body: { set_name: 'Set from the phone' } })).statusCode).toBe(200);
    await editor.getByLabel('note').fill('Top-loader 7');
    await editor.getByRole('button', { name: 'Save correction' }).click();
    await page.getByText('Saved.').waitFor(SLOW);
    expect(await e3()).toMatchObject({ set_name: 'Set from the phone', note: 'Top-loader 7' });
    // the phone renames it, and notes it, while a name is typed here: not overwritten unseen (it was: the last save won)
    expect((await h.request('PATCH', cs(`identification/${id}/`), { body: { name: 'Name from the phone', note: 'Note from the phone' } })).statusCode).toBe(200);
    await editor.getByLabel('name', { exact: true }).fill('Name from the console');
    await editor.getByRole('button', { name: 'Save correction' }).click();
    await page.getByText(/^Not saved: this card was changed meanwhile .*name is now “Name from the phone”/).waitFor(SLOW);
    expect(await e3()).toMatchObject({ name: 'Name from the phone', note: 'Note from the phone' });
    expect(await editor.getByLabel('name', { exact: true }).inputValue()).toBe('Name from the console');
    // the note, left alone here, shows the phone's
    expect(await editor.getByLabel('note').inputValue()).toBe('Note from the phone');
    // saved again, knowingly: the console's name, the phone's note kept (h278: the form's old note went back)
    await editor.getByRole('button', { name: 'Save correction' }).click();
    await page.getByText('Saved.').waitFor(SLOW);
    expect(await e3()).toMatchObject({ name: 'Name from the console', set_name: 'Set from the phone', note: 'Note from the phone' });
  }, 45_000);

  /**
   * A live session's page, on a tab of its own whose clock the tests move on to the page's next poll: they waited for
   * its 4-s ticks in real time (12, 8, 5 and 13 s). The clock is installed on these tabs only: it runs the page's
   * timers and animation frames on its own loop, which put the other tests' effects a little later (a title read
   * right after a focus, one run in four under load).
   */
  describe("a live session's page, polled on a clock moved on", () => {
    const swapTab = async (clock: boolean) => {
      pollingClock = clock;
      const old = page;
      page = await signedInTab();
      old.removeAllListeners();
      await within(10_000, old.close({ runBeforeUnload: false }).catch(() => undefined));
    };
    beforeAll(() => swapTab(true), 60_000);
    afterAll(() => swapTab(false), 60_000);

    it('picks up cards uploaded while the page is open (polling a live session)', async () => {
      // on the session's page with its cards drawn first, whatever the test before left open
      await openFresh(`#/sessions/${sessionId}`);
      await page.locator('[data-event-id="e1"]').waitFor(STEP);
      await expect.poll(() => page.getByTestId('loaded').textContent(), SLOW).toMatch(/^\d+ of \d+ cards/);
      // what the count line shows from now on: a new card is not "Loading 3 of 4…" first (h219)
      await page.evaluate(() => {
        const line = document.querySelector('[data-testid="loaded"]')!;
        const seen: string[] = [];
        (window as unknown as { countLine: string[] }).countLine = seen;
        new MutationObserver(() => seen.push(line.textContent ?? '')).observe(line, { childList: true, subtree: true, characterData: true });
      });
      const exportCsv = page.getByRole('button', { name: 'Export CSV' });
      await exportCsv.focus();
      const posted = await h.request('POST', cs(`session/${sessionId}/identifications/`), { body: { identifications: [{ event_id: 'e4', name: 'Mewtwo', set_name: 'Base Set', price: 9 }] } });
      expect(posted.statusCode, posted.body).toBe(200);
      await nextPoll();
      await page.locator('[data-event-id="e4"]').waitFor({ timeout: 15_000 });
      // new cards are said at most every 10 s, on a poll's tick: the page's clock moved on past both
      await page.clock.fastForward(10_000);
      // said once, in a few words, not every count the line passed through; Export CSV kept the focus (disabled, it lost it)
      await expect.poll(() => page.getByTestId('said').textContent(), { timeout: 20_000 }).toMatch(/^1 new card, \d+ in all$/);
      expect(await page.evaluate(() => (window as unknown as { countLine: string[] }).countLine.filter((t) => t.startsWith('Loading')))).toEqual([]);
      expect(await exportCsv.getAttribute('aria-disabled')).toBe('false');
      expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Export CSV');
    }, 45_000);

    it("shows an image sent after its card, and a card deleted and another sent at its price, while the page is open (h254: neither showed until a new card came)", async () => {
      await openFresh(`#/sessions/${sessionId}`);
      await page.locator('[data-event-id="e4"]').waitFor(STEP);
      expect(await page.locator('[data-event-id="e4"] .no-image').count()).toBe(1);
      const jpeg = await sharp({ create: { width: 320, height: 440, channels: 3, background: '#c83' } }).jpeg().toBuffer();
      expect((await h.request('POST', cs(`session/${sessionId}/images/`), { body: { event_id: 'e4', image: jpeg.toString('base64') } })).statusCode).toBe(200);
      await nextPoll();
      await page.locator('[data-event-id="e4"] img').waitFor({ timeout: 15_000 });
      // the scanner deletes a misread card and sends the right one at the same price: count and total as they were
      const e4 = (await h.request('GET', cs(`identification/?session=${sessionId}&event_id=e4`))).json().results[0] as { id: string; price: number };
      await page.locator('[data-event-id="e4"]').focus();
      expect((await h.request('DELETE', cs(`identification/${e4.id}/`))).statusCode).toBe(204);
      expect((await h.request('POST', cs(`session/${sessionId}/identifications/`), { body: { identifications: [{ event_id: 'e5', name: 'Mew', price: e4.price }] } })).statusCode).toBe(200);
      await nextPoll();
      await page.locator('[data-event-id="e5"]').waitFor({ timeout: 15_000 });
      await expect.poll(() => page.locator('[data-event-id="e4"]').count(), SLOW).toBe(0);
      // the keyboard was on the deleted card: it is on the grid, and an arrow takes it to the grid's Tab stop (the
      // arrows did nothing there, though the grid says they move between its cards)
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('card-grid');
      await page.keyboard.press('ArrowRight');
      expect(await page.evaluate(() => document.activeElement?.matches('.card[tabindex="0"][data-event-id]') ?? false)).toBe(true);
    }, 45_000);

    it('closes a session only as this page read it: one renamed elsewhere meanwhile is refused and read again (session versions, h263)', async () => {
      const sid = await createSession(h, { name: 'Versioned stream', game: 'TCG' });
      // every read of the session the page makes answers as it was before another device renames it: routed from the
      // start (CI once failed where a poll already on its way when the route was set read the renamed session)
      const stale = (await h.request('GET', cs(`session/${sid}/`))).body;
      await page.route(`**/cardstream/v2/session/${sid}/`, (route) => (route.request().method() === 'GET' ? route.fulfill({ status: 200, contentType: 'application/json', body: stale }) : route.continue()));
      try {
        await openFresh(`#/sessions/${sid}`);
        await page.getByRole('heading', { name: 'Versioned stream' }).waitFor(STEP);
        expect((await h.request('PATCH', cs(`session/${sid}/`), { body: { name: 'Renamed on the phone' } })).statusCode).toBe(200);
        page.once('dialog', (d) => void d.accept());
        await page.getByRole('button', { name: 'Close session' }).first().click();
        await expect.poll(() => page.getByRole('alert').first().textContent(), SLOW).toMatch(/changed elsewhere since this page read it/);
        expect((await h.request('GET', cs(`session/${sid}/`))).json().status).toBe('live');
      } finally {
        await page.unroute(`**/cardstream/v2/session/${sid}/`);
      }
      // read again, the page holds the new version: the close goes through
      await nextPoll();
      await page.getByRole('heading', { name: 'Renamed on the phone' }).waitFor(STEP);
      // the refusal is still said after the refreshes that read the session again (each cleared it before, at once)
      expect(await page.getByText(/changed elsewhere since this page read it/).count()).toBe(1);
      page.once('dialog', (d) => void d.accept());
      await page.getByRole('button', { name: 'Close session' }).first().click();
      await expect.poll(async () => (await h.request('GET', cs(`session/${sid}/`))).json().status, SLOW).toBe('closed');
      // an action tried again takes the old refusal away
      await expect.poll(() => page.getByText(/changed elsewhere since this page read it/).count(), SLOW).toBe(0);
    }, 45_000);

    it('says a live session deleted elsewhere is gone and stops asking for it (h254: a 404 every 4 s while the page stayed open)', async () => {
      const doomed = await createSession(h, { name: 'Deleted elsewhere', game: 'TCG' });
      expect((await h.request('POST', cs(`session/${doomed}/identifications/`), { body: { identifications: [{ event_id: 'd1', name: 'Eevee', price: 1 }] } })).statusCode).toBe(200);
      await openFresh(`#/sessions/${doomed}`);
      await page.locator('[data-event-id="d1"]').waitFor(STEP);
      let asked = 0;
      const seen: string[] = [];
      const count = (req: { url(): string }) => {
        if (!req.url().includes(`/cardstream/v2/session/${doomed}/`)) return;
        asked++;
        seen.push(req.url().replace(base, ''));
      };
      page.on('request', count);
      try {
        expect((await h.request('DELETE', cs(`session/${doomed}/`))).statusCode).toBe(204);
        await nextPoll();
        await expect.poll(() => page.getByTestId('loaded').textContent(), { timeout: 15_000 }).toMatch(/· deleted$/);
        await expect.poll(() => page.getByRole('alert').first().textContent(), SLOW).toMatch(/no longer exists/);
        // the cards it held stay on the page to read; the polling stopped with the first 404
        expect(await page.locator('[data-event-id="d1"]').count()).toBe(1);
        // counted once the 404's render has run its effects, the poll's interval cleared among them: Preact runs them in a
        // timeout after the next frame, which a frame and a timeout asked for now follow. Counted before (one full-file run
        // in six here), the clock moved on 4.5 s at once fired the interval in the same jump as the effects, and the
        // page was seen asking once more, which real time, 4 s between the two, never lets happen.
        await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0))));
        const after = asked;
        // two of its 4-s ticks on the page's clock (9 s of real waiting before), each given time to send what it would
        for (let i = 0; i < 2; i++) {
          await page.clock.fastForward(4_500);
          await new Promise((r) => setTimeout(r, 500));
        }
        // the requests in the failure's message: the suite's tail is what CI shows (one run here asked again once)
        expect(asked, `asked after the 404 was shown: ${seen.slice(after).join(', ')}`).toBe(after);
      } finally {
        page.off('request', count);
      }
    }, 45_000);

  });

  it('scrolls a 5,000-card session drawing only the rows in view, and exports all of it as CSV', async () => {
    await page.goto(`${base}/console#/sessions/${bigSessionId}`);
    await expect.poll(() => page.getByTestId('loaded').textContent(), { timeout: 20_000 }).toMatch(/^5000 of 5000 cards/);
    const drawn = await page.locator('.card').count();
    expect(drawn).toBeLessThan(120);
    // the keyboard on a card scrolled out of view stays on it (h166: the card left the page, the focus fell to its start)
    await page.locator('.card').nth(2).focus();
    const focusedId = await page.evaluate(() => document.activeElement?.getAttribute('data-event-id'));
    for (let i = 0; i < 3; i++) await page.keyboard.press('PageDown');
    await expect.poll(() => page.evaluate(() => document.querySelector('[data-testid="card-grid"]')!.scrollTop), SLOW).toBeGreaterThan(900);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-event-id'))).toBe(focusedId);
    // scrolled too far to keep: the grid keeps the keyboard
    await page.keyboard.press('End');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.getAttribute('data-event-id')), SLOW).toMatch(/^(card-grid|big-)/);
    // End scrolls smoothly: it is let come to rest before the grid goes back to its top, or it went on scrolling under
    // the measure below, which then took from 11 to 342 screens by the machine's speed (a loaded machine ran past the
    // test's limit). At rest, not at the bottom: the focus handed to the grid on the way can end the smooth scroll early.
    let lastTop = -1;
    await expect
      .poll(async () => {
        const top = await page.evaluate(() => document.querySelector<HTMLElement>('[data-testid="card-grid"]')!.scrollTop);
        const still = top === lastTop;
        lastTop = top;
        return still;
      }, { timeout: 10_000, interval: 250 })
      .toBe(true);
    await page.evaluate(() => document.querySelector('[data-testid="card-grid"]')!.scrollTo({ top: 0, behavior: 'instant' }));
    // Scroll top to bottom in at most 50 steps of a screen or more, timing each frame the browser paints.
    // The same steps over an empty box of the same size, in the same run: what a frame costs the
    // browser on this machine with nothing to draw (headless Chromium renders in software).
    // Bounded in steps and in time, and it stops where the box no longer moves: a box with no height never reaches its
    // bottom, and the loop waiting for it went on in the tab after its test had failed.
    const measure = (selector: string | null) =>
      page.evaluate(async (sel) => {
        const real = sel ? document.querySelector<HTMLElement>(sel)! : null;
        let grid = real;
        if (!grid) {
          const like = document.querySelector<HTMLElement>('[data-testid="card-grid"]')!;
          grid = document.createElement('div');
          grid.style.cssText = `position:fixed;inset:0;overflow-y:auto;height:${like.clientHeight}px`;
          // Through the CSSOM: the page's content security policy refuses inline style attributes.
          const spacer = document.createElement('div');
          spacer.style.height = `${like.scrollHeight}px`;
          grid.append(spacer);
          document.body.append(grid);
        }
        const box = grid;
        const height = box.clientHeight;
        const step = Math.max(height, Math.ceil((box.scrollHeight - height) / 50));
        const times: number[] = [];
        const started = performance.now();
        let last = started;
        let stuck = false;
        while (height > 0 && box.scrollTop + box.clientHeight < box.scrollHeight - 1 && times.length < 60 && last - started < 12_000) {
          const before = box.scrollTop;
          box.scrollTop = before + step;
          await new Promise((r) => requestAnimationFrame(() => r(null)));
          const now = performance.now();
          times.push(now - last);
          last = now;
          if (box.scrollTop <= before) {
            stuck = true;
            break;
          }
        }
        // out of time (a machine this slow): the rest in one step, so the page below is the grid's bottom all the same
        const cut = !stuck && box.scrollTop + box.clientHeight < box.scrollHeight - 1;
        if (cut) box.scrollTop = box.scrollHeight;
        if (!real) box.remove();
        await new Promise((r) => setTimeout(r, 50));
        const sorted = [...times].sort((a, b) => a - b);
        return { height, cut, stuck, steps: times.length, worst: sorted[sorted.length - 1] ?? NaN, p95: sorted[Math.floor(sorted.length * 0.95)] ?? NaN, mean: times.reduce((a, b) => a + b, 0) / times.length };
      }, selector);
    const frames = await measure('[data-testid="card-grid"]');
    const baseline = await measure(null);
    // a grid with no height, or one that stopped moving, is this test's failure, not a loop left running in the tab
    expect(frames.height).toBeGreaterThan(0);
    expect(frames.stuck).toBe(false);
    console.log(`5,000-card session: ${drawn} cards in the page, ${frames.steps} steps scrolled, frame mean ${frames.mean.toFixed(1)} ms, p95 ${frames.p95.toFixed(1)} ms, worst ${frames.worst.toFixed(1)} ms; an empty box scrolled alike: mean ${baseline.mean.toFixed(1)} ms, p95 ${baseline.p95.toFixed(1)} ms${frames.cut || baseline.cut ? ' (cut short after 12 s)' : ''}`);
    await page.locator('[data-event-id="big-4999"]').waitFor();
    expect(await page.locator('.card').count()).toBeLessThan(120);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = await fsp.readFile((await (await download).path())!, 'utf8');
    expect(csv.trim().split('\r\n')).toHaveLength(5001);
    expect(csv).toContain('big-4999,,Card 4999,');
    // its waits add up to about 75 s on a machine slow enough to use them all
  }, 90_000);

  it('gives the card grid one Tab stop, and the arrow keys move between its cards, scrolling along (Tab went through every card drawn)', async () => {
    await openFresh(`#/sessions/${bigSessionId}`);
    await expect.poll(() => page.getByTestId('loaded').textContent(), { timeout: 20_000 }).toMatch(/^5000 of 5000 cards/);
    const active = () => page.evaluate(() => document.activeElement?.getAttribute('data-event-id') ?? document.activeElement?.tagName ?? null);
    expect(await page.locator('.card[tabindex="0"]').count()).toBe(1);
    // from the filter box before the grid: one Tab into the grid, one out of it, one Shift+Tab back to the box
    await page.getByPlaceholder(/^Filter loaded cards/).focus();
    await page.keyboard.press('Tab');
    expect(await active()).toBe('big-0');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="card-grid"]') ?? null)).toBeNull();
    await page.getByPlaceholder(/^Filter loaded cards/).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    expect(await active()).toBe('INPUT');
    await page.keyboard.press('Tab');
    const columns = await page.evaluate(() => getComputedStyle(document.querySelector('.grid-window')!).gridTemplateColumns.split(' ').length);
    expect(columns).toBeGreaterThan(1);
    await page.keyboard.press('ArrowRight');
    expect(await active()).toBe('big-1');
    await page.keyboard.press('ArrowDown');
    expect(await active()).toBe(`big-${1 + columns}`);
    await page.keyboard.press('ArrowLeft');
    expect(await active()).toBe(`big-${columns}`);
    // twenty rows down: the grid scrolls along, the card reached is in view, and it is the grid's Tab stop now
    for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowDown');
    expect(await active()).toBe(`big-${21 * columns}`);
    const inView = await page.evaluate(() => {
      const grid = document.querySelector('[data-testid="card-grid"]')!.getBoundingClientRect();
      const card = document.activeElement!.getBoundingClientRect();
      return card.top >= grid.top - 1 && card.bottom <= grid.bottom + 1;
    });
    expect(inView).toBe(true);
    expect(await page.locator('.card[tabindex="0"]').getAttribute('data-event-id')).toBe(`big-${21 * columns}`);
    // Enter still opens the card it is on
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.card.selected').getAttribute('data-event-id'), SLOW).toBe(`big-${21 * columns}`);
  }, 60_000);

  it('searches a collection by image, shows distances, checks filters and reports the text search answer', async () => {
    await page.goto(`${base}/console#/search`);
    await page.getByLabel('Collection id').fill(collectionId);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByTestId('collection-info').waitFor();
    // the results' live region is on the page before the first results (h138: added already filled, not read out)
    expect(await page.locator('h2#results-title + [aria-live="polite"]').count()).toBe(1);
    await page.getByLabel('Filter (optional, MongoDB syntax)').fill('{"price": {"$where": 1}}');
    expect(await page.locator('#filter-msg').textContent()).toMatch(/\$where is not an operator/);
    await page.getByLabel('Filter (optional, MongoDB syntax)').fill('{"price": {"$lt": 50}}');
    await page.getByLabel('Drop a query image or choose one').setInputFiles(photoPath('caltech101/Leopards/image_0001.jpg'));
    await page.locator('[data-testid="result-status"], [role="alert"]').first().waitFor({ timeout: 30_000 });
    expect(await page.getByRole('alert').count(), await page.locator('main').textContent() ?? '').toBe(0);
    const first = page.locator('.result').first();
    expect(await first.locator('.card-name').textContent()).toBe('leopard-1');
    // the picture is the result: named (h138: alt="" left only the id and distance)
    expect(await first.locator('img').getAttribute('alt')).toBe('Image of record leopard-1');
    // the server's own thumbnail of it, through a signed link, not the shop's _url hot-linked (h357)
    expect(await first.locator('img').getAttribute('src')).toMatch(new RegExp(`^${base}/media/[0-9a-f]{32}\\.jpg\\?expires=`));
    expect(await first.locator('.distance').textContent()).toMatch(/^distance 0(\.0+)?$|^distance 0\.0\d*/);
    expect(await page.locator('.result').count()).toBe(3); // plane-1 costs 99
    // the live region is the one-line summary, not the whole list read out at each search (h219)
    // in words, the API's status (`200 OK`) in its title (h326)
    expect(await page.locator('h2#results-title + [aria-live="polite"]').textContent()).toBe('3 results, most alike first');
    expect(await page.getByTestId('result-status').getAttribute('title')).toMatch(/^\d{3} /);
    // what a distance is, said once above the results
    expect(await page.getByText(/^Distance: how different a result is from the query; 0 is the same picture/).count()).toBe(1);
    expect(await page.locator('[aria-live] .result').count()).toBe(0);
    // the photo searched with stands above its results (h342: its file name only), drawn
    expect(await page.getByTestId('query-picture').getAttribute('alt')).toBe('The photo searched with, image_0001.jpg');
    expect(await page.getByTestId('query-picture').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await shot('search');
    // a result's Delete hands the focus to the next result's Delete, not to the page's start (h138)
    page.once('dialog', (d) => void d.accept());
    const second = (await page.locator('.result').nth(1).locator('.card-name').textContent())!;
    await page.locator('.result').first().getByRole('button', { name: /^Delete record/ }).click();
    await expect.poll(() => page.locator('.result').count(), SLOW).toBe(2);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')), SLOW).toBe(`Delete record ${second}`);
    await page.getByLabel('Text query').fill('leopard');
    await page.getByRole('button', { name: 'Search text' }).click();
    // Text search is issue 20's; whichever answer the server gives, the page shows it readably.
    await expect.poll(async () => (await page.getByRole('alert').count()) > 0 || /for text/.test((await page.getByRole('heading', { name: /^Results/ }).textContent()) ?? ''), { timeout: 15_000 }).toBe(true);
    // words are no picture: the line over a text search's results does not say "0 is the same picture" (h342), nor
    // does the last photo stand above them. The answer is the API's shape, given here: whether this harness's text
    // search finds a leopard is not what is checked.
    await page.route('**/similarity/text/photos/v2/text', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ status: { code: 200, text: 'OK' }, answer_count: 1, answer_records: [{ _id: 'leopard-2' }], answer_distances: [33.3] }) }),
    );
    try {
      await page.getByRole('button', { name: 'Search text' }).click();
      await expect.poll(() => page.getByTestId('distance-meaning').textContent(), SLOW).toMatch(/^Distance: how well a result matches the words/);
      expect(await page.getByTestId('query-picture').count()).toBe(0);
    } finally {
      await page.unroute('**/similarity/text/photos/v2/text');
    }
    // two photos of one file name from different folders are two records, and the collection's line counts them (h240:
    // the second was refused as a repeat, and the line kept the count from before the insert)
    // the page's line says items (h326: the server's line, with its index and vector size, is under Technical details)
    const countOf = async () => Number(/(\d+) items? stored/.exec((await page.getByTestId('collection-info').textContent()) ?? '')?.[1] ?? NaN);
    const stored = async () => Number(/(\d+) records?/.exec((await h.request('GET', '/similarity/photos/v2/ping', { headers: { 'collection-id': collectionId } })).json().info)?.[1] ?? NaN);
    const before = await stored();
    // the line followed the delete above too
    await expect.poll(countOf, { timeout: 10_000 }).toBe(before);
    await page.getByText('Add images to the collection').click();
    const buffer = async (rel: string) => fsp.readFile(photoPath(rel));
    await page.getByLabel('Drop images to add (each is stored under its file name)').setInputFiles([
      { name: 'image_0001.jpg', mimeType: 'image/jpeg', buffer: await buffer('caltech101/airplanes/image_0001.jpg') },
      { name: 'image_0001.jpg', mimeType: 'image/jpeg', buffer: await buffer('caltech101/watch/image_0001.jpg') },
    ]);
    await expect.poll(() => page.locator('pre.log').textContent(), { timeout: 60_000 }).toMatch(/2 images added/);
    await expect.poll(countOf, { timeout: 10_000 }).toBe(before + 2);
    const ids = (await h.request('POST', '/similarity/photos/v2/get', { body: { records: [{ _id: 'image_0001.jpg' }, { _id: 'image_0001.jpg (2)' }] }, headers: { 'collection-id': collectionId } })).json().answer_records.map((r: { _id: string }) => r._id);
    expect(ids).toEqual(['image_0001.jpg', 'image_0001.jpg (2)']);
    // a record sent as _base64 shows its picture (h357: "no stored image" for every record the console or README step 5 added)
    await page.getByLabel('Filter (optional, MongoDB syntax)').fill('');
    await page.getByLabel('Drop a query image or choose one').setInputFiles(photoPath('caltech101/watch/image_0001.jpg'));
    const added = page.locator('.result', { has: page.locator('.card-name', { hasText: /^image_0001\.jpg \(2\)$/ }) });
    await added.waitFor({ timeout: 30_000 });
    await expect.poll(() => added.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), SLOW).toBeGreaterThan(0);
    expect(await added.locator('img').getAttribute('src')).toMatch(new RegExp(`^${base}/media/`));
    expect(await added.locator('.no-image').count()).toBe(0);
  }, 90_000);

  it('grades a photo through an asynchronous request and shows the overlays and grades', async () => {
    await page.goto(`${base}/console#/grading`);
    await page.getByLabel('Photo of the front (then the back, optional)').setInputFiles(photoPath(gradePhoto));
    await page.getByRole('button', { name: /^Grade/ }).click();
    await expect.poll(() => page.getByTestId('grading-status').textContent(), { timeout: 60_000 }).toMatch(/^Done · /);
    // the API's state stays in the title (h326: the line said DONE)
    expect(await page.getByTestId('grading-status').getAttribute('title')).toBe('DONE');
    const overlay = page.getByTestId('full-overlay');
    await overlay.waitFor();
    await expect.poll(() => overlay.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await page.getByTestId('exact-overlay').evaluate((img: HTMLImageElement) => img.src)).toMatch(/\/media\//);
    expect(await page.locator('.stat', { hasText: 'final' }).count()).toBe(1);
    expect(await page.locator('.grade-record').textContent()).toMatch(/Centering: left\/right \d/);
    await shot('grading');
    // opened again when its pictures' links have run out (a page left open past their hour): the request is read again
    // for fresh links, and the pictures load (they stayed broken until the page was reloaded)
    const id = (await h.request('GET', '/account/v2/request/?type=card-grader&page_size=1')).json().results[0].id as string;
    let stale = 0;
    await page.route(`**/account/v2/request/${id}`, async (route) => {
      const real = await route.fetch();
      const body = (await real.text()).replace(/expires=\d+/g, () => (stale++, 'expires=1000000000'));
      // the unfolded list and the opened request read this detail at once (h346), and a reload may drop one of them
      // meanwhile: a request already answered or gone takes no answer, which is no failure of the page
      await route.fulfill({ response: real, body }).catch((err: Error) => {
        if (!/already handled|closed|disposed/i.test(err.message)) throw err;
      });
      await page.unroute(`**/account/v2/request/${id}`);
    });
    await page.reload();
    await page.getByText('Recent grading requests').click();
    await page.locator('details li button').first().click();
    await expect.poll(() => overlay.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0 && !/expires=1000000000/.test(img.src)), { timeout: 15_000 }).toBe(true);
    expect(stale).toBeGreaterThan(0);
  });

  it('recognises a card with its price chart and adds it to a session in one click', async () => {
    // The card's region with the playmat around it, as collectibles.test.ts sends it: on the whole
    // photo the detector's outline of this holo card is 56 px off at one corner, and refused.
    const cut = path.join(catalogDir, 'card.jpg');
    await sharp(photoPath(cardPhoto)).extract({ left: 100, top: 250, width: 520, height: 680 }).jpeg({ quality: 92 }).toFile(cut);
    await page.goto(`${base}/console#/recognition`);
    await page.getByLabel('Drop photos of cards, or a binder page').setInputFiles(cut);
    await expect.poll(() => page.getByTestId('best-match').first().textContent(), { timeout: 60_000 }).toMatch(/Alphamon/);
    expect(await page.locator('.price-chart svg').count()).toBe(1);
    // the figure's caption says what the marks mean; its figures are a table of their own (the caption held the table, h240)
    expect(await page.locator('.price-chart figcaption table').count()).toBe(0);
    expect(await page.locator('.price-chart > table caption').textContent()).toBe('Price statistics by period');
    expect(await page.locator('.price-chart > :last-child').evaluate((el) => el.tagName)).toBe('FIGCAPTION');
    expect(await page.locator('.price-chart tbody th[scope="row"]').count()).toBeGreaterThan(0);
    await page.getByRole('combobox', { name: /Add 1 identified card to/ }).selectOption({ label: 'Friday stream' });
    await page.getByRole('button', { name: 'Add to session' }).click();
    await page.getByTestId('added-link').waitFor({ timeout: 30_000 });
    const rows = (await h.request('GET', cs(`identification/?session=${sessionId}`))).json().results as { name: string; set_name: string; image: string | null; price_stats?: unknown[] }[];
    const added = rows.find((r) => r.name === 'Alphamon')!;
    expect(added).toMatchObject({ set_name: 'Test Alpha' });
    expect(added.image).toMatch(/\/media\//);
    expect(added.price_stats?.length).toBeGreaterThan(0);
    await shot('recognition');
  });

  it("names \"It is this one\" after its words and gives the focus to the card it named (h219)", async () => {
    // a card recognition could not name, as the API answers it: no best match, alternatives (one with empty names)
    await page.route('**/collectibles/v2/tcg_id', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ status: { code: 200, text: 'OK' }, records: [{ _id: 'unknown.jpg', _width: 400, _height: 560, _status: { code: 200, text: 'OK' }, _objects: [{ id: 1, name: 'Card', bound_box: [0, 0, 400, 560], _identification: { best_match: null, alternatives: [{ name: 'Betamon', full_name: '' }, { name: '', full_name: '' }], distances: [0.3, 0.4] } }] }] }),
      }),
    );
    try {
      await page.goto(`${base}/console#/recognition`);
      await page.getByLabel('Drop photos of cards, or a binder page').setInputFiles(photoPath(cardPhoto));
      await page.getByText('2 alternatives').click();
      // the words shown first, the card after them (WCAG 2.5.3: it was named "It is Betamon"); an empty name says so
      expect(await page.getByRole('button', { name: /^It is this one/ }).count()).toBe(2);
      await page.getByRole('button', { name: /^It is this one ?: unnamed card$/ }).waitFor(STEP);
      await page.getByRole('button', { name: /^It is this one ?: Betamon$/ }).focus();
      await page.keyboard.press('Enter');
      // the button is gone with the list it was in: the keyboard is on the card's heading, not the page's start
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')), SLOW).toBe('best-match');
      expect(await page.getByTestId('best-match').textContent()).toBe('Betamon');
    } finally {
      await page.unroute('**/collectibles/v2/tcg_id');
    }
  });

  it('reads photos as sport cards or comics where asked, and adds them to a new session of that game', async () => {
    // the server's sport_id, answered as it answers a drawn Topps card (collectibles.test.ts)
    const sent: string[] = [];
    await page.route('**/collectibles/v2/sport_id', (route) => {
      sent.push(route.request().url());
      return route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ status: { code: 200, text: 'OK' }, records: [{ _id: 'sport.jpg', _width: 400, _height: 560, _status: { code: 200, text: 'OK' }, _objects: [{ id: 1, name: 'Card', bound_box: [0, 0, 400, 560], _identification: { best_match: { id: '2022 Topps Update Series|base|50', name: 'Marcus Stroman', full_name: '2022 Topps Update Series #50 Marcus Stroman', set_name: '2022 Topps Update Series', card_number: '50', year: '2022', subcategory: 'Baseball' }, alternatives: [], distances: [0.02] } }] }] }),
      });
    });
    // a file of its own: the page before dropped this card's photo, and its answer is still on the page
    const sport = path.join(catalogDir, 'sport.jpg');
    await fsp.copyFile(photoPath(cardPhoto), sport);
    try {
      await page.goto(`${base}/console#/recognition`);
      await page.reload();
      await page.getByRole('combobox', { name: /The photos show/ }).selectOption({ label: 'Sport cards' });
      await page.getByLabel('Drop photos of cards, or a binder page').setInputFiles(sport);
      await expect.poll(() => page.getByTestId('best-match').first().textContent(), SLOW).toBe('2022 Topps Update Series #50 Marcus Stroman');
      expect(sent).toHaveLength(1);
      expect(await page.locator('.match .hint').first().textContent()).toMatch(/^2022 Topps Update Series · #50 · 2022 · (high|medium|low) confidence$/);
      // the distance it comes from is the title's, for a developer (h326: "distance 0.031" said nothing to a shop)
      expect(await page.locator('.match .hint [title^="match distance"]').first().getAttribute('title')).toMatch(/^match distance \d/);
      await page.getByRole('combobox', { name: /Add 1 identified card to/ }).selectOption({ value: '' });
      await page.getByRole('button', { name: 'Add to session' }).click();
      await page.getByTestId('added-link').waitFor({ timeout: 30_000 });
      const made = (await page.getByTestId('added-link').getAttribute('href'))!.replace('#/sessions/', '');
      expect((await h.request('GET', cs(`session/${made}/`))).json()).toMatchObject({ game: 'Sports' });
      const rows = (await h.request('GET', cs(`identification/?session=${made}`))).json().results as Record<string, unknown>[];
      expect(rows).toEqual([expect.objectContaining({ id_type: 'sport', name: 'Marcus Stroman', set_name: '2022 Topps Update Series', card_number: '50', subcategory: 'Baseball' })]);
    } finally {
      await page.unroute('**/collectibles/v2/sport_id');
    }
  });

  it('groups duplicates of a folder of photos', async () => {
    await page.goto(`${base}/console#/matching`);
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-console-folder-'));
    try {
      for (const [name, rel] of [['a.jpg', 'caltech101/Leopards/image_0001.jpg'], ['a-copy.jpg', 'caltech101/Leopards/image_0001.jpg'], ['b.jpg', 'caltech101/watch/image_0001.jpg']]) await fsp.copyFile(photoPath(rel!), path.join(dir, name!));
      await page.getByLabel('Choose a folder of photos (or drop photos)').setInputFiles(dir);
      await expect.poll(() => page.getByTestId('dup-summary').textContent(), { timeout: 30_000 }).toMatch(/^With differences up to 10: 2 distinct images, 1 with duplicates/);
      // the kept image said as kept, an exact copy with its difference of 0 (it read as the kept one, h240)
      const said = (await page.locator('.dup-group li span').allTextContents()).map((t) => t.trim().replace(/^\S+ /, ''));
      expect(said.sort()).toEqual(['(difference 0)', '(kept)']);
      await shot('matching');
      // the slider moved by keys regroups once it rests, for the value it shows (each press sent a paid call, and
      // presses during one were dropped: the groups shown were another value's, h84)
      const calls: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('remove_duplicates')) calls.push(r.url());
      });
      await page.getByRole('slider').focus();
      for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowRight');
      await expect.poll(() => page.getByTestId('dup-summary').textContent(), { timeout: 30_000 }).toMatch(/^With differences up to 22: /);
      expect(calls.length).toBe(1);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });

  it('names each page in its title, takes the focus to a page chosen from the menu, and keeps it on the pager (h84)', async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${base}/console#/sessions`);
    await page.locator('main h1').waitFor();
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('Sessions · Loupe console');
    await page.getByRole('link', { name: 'Grading' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('Grading · Loupe console');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), { timeout: 10_000 }).toBe('Grading');
    // leaving a session's page names the next page (the session's title was set back to "Loupe console" after it, h240)
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await expect.poll(() => page.title(), { timeout: 10_000 }).toMatch(/· Session · Loupe console$/);
    await page.getByRole('link', { name: 'Grading' }).click();
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('Grading · Loupe console');
    await page.waitForTimeout(300);
    expect(await page.title()).toBe('Grading · Loupe console');
    // a search that finds nothing shows no table of a header row alone
    await page.goto(`${base}/console#/sessions`);
    await page.getByLabel('Search sessions').fill('zzzz-nothing');
    await expect.poll(() => page.locator('p.empty').textContent(), { timeout: 10_000 }).toMatch(/No session matches/);
    expect(await page.getByRole('table').count()).toBe(0);
    // a pager button at its end keeps the focus (disabled, it dropped it to the page's start)
    await page.goto(`${base}/console#/sessions`);
    const previous = page.getByRole('button', { name: 'Previous' });
    await previous.waitFor({ timeout: 30_000 });
    await previous.focus();
    await page.keyboard.press('Enter');
    expect(await previous.getAttribute('aria-disabled')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Previous');
    // the phone menu closes with Escape, its button taking the focus back
    await page.setViewportSize({ width: 390, height: 844 });
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    await expect.poll(() => menu.getAttribute('aria-expanded'), { timeout: 10_000 }).toBe('true');
    // the account's services with the rest of it in the open menu (h166: never shown on a phone)
    expect(await page.getByTestId('services').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.getAttribute('aria-expanded'), { timeout: 10_000 }).toBe('false');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Menu');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("fits a phone's width, with every control named", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // a photo's long file name wraps (the page scrolled sideways to 545 px, h240)
    await page.goto(`${base}/console#/grading`);
    await page.getByLabel('Photo of the front (then the back, optional)').setInputFiles({ name: `Captura-de-tela-2026-06-14-125358_png.rf.bcaecd3af01c6551af1b96a33f0bc37d${'x'.repeat(40)}.jpg`, mimeType: 'image/jpeg', buffer: await fsp.readFile(photoPath(gradePhoto)) });
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const route of [`#/sessions/${sessionId}`, '#/sessions', '#/search', '#/grading', '#/recognition', '#/matching']) {
      await page.goto(`${base}/console${route}`);
      await page.locator('main h1').waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth), route).toBeLessThanOrEqual(390);
      const unnamed = await page.evaluate(() =>
        [...document.querySelectorAll('input, select, textarea, button, a[href]')]
          .filter((el) => {
            const e = el as HTMLElement;
            if (e.offsetParent === null && getComputedStyle(e).position !== 'fixed') return false;
            const labelled = (e as HTMLInputElement).labels?.length || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || e.textContent?.trim() || e.getAttribute('title');
            return !labelled;
          })
          .map((e) => e.outerHTML.slice(0, 80)),
      );
      expect(unnamed, route).toEqual([]);
      if (route.startsWith('#/sessions/')) {
        await page.locator('[data-event-id="e2"]').waitFor();
        await shot('session-phone');
        // On a phone the card opens as a sheet over the grid, still inside the screen's width.
        await page.locator('[data-event-id="e2"]').click();
        await page.getByRole('form', { name: 'Correct this card' }).waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await shot('card-phone');
      }
    }
  });

  it("shows a small phone a session's cards and the sheet's Save on the first screen, sessions as rows that fit, and taps of 40 px (h97)", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    const smallTaps = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('header button, header a[href], main button, main a[href], main summary, main input[type="checkbox"]')]
          .filter((el) => (el as HTMLElement).offsetParent !== null || getComputedStyle(el).position === 'fixed')
          // a checkbox is tapped through its label
          .map((el) => [el, (el.matches('input') ? el.closest('label') : null) ?? el] as const)
          .filter(([, target]) => target.getBoundingClientRect().height < 44)
          .map(([el]) => el.outerHTML.slice(0, 70)),
      );
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await page.locator('[data-event-id="e2"]').waitFor();
    // the first card's picture whole on the first screen (its top was at y = 718 of 740: title, buttons and tiles above it)
    const first = await page.locator('[data-event-id]').first().boundingBox();
    expect(first!.y + 200).toBeLessThanOrEqual(740);
    expect(await smallTaps()).toEqual([]);
    // at 320 px too, and no tile's figure broken over two lines (h111: "$123,555." above "78", the date in three)
    await page.setViewportSize({ width: 320, height: 640 });
    expect((await page.locator('[data-event-id]').first().boundingBox())!.y + 150).toBeLessThanOrEqual(640);
    expect(await page.evaluate(() => [...document.querySelectorAll('.stat-value')].filter((e) => e.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(e).lineHeight)).length)).toBe(0);
    // nor cut: a large total shows whole (h116: "$1,234,…")
    // the test's own fetch of the summary may meet a reset (CI: ECONNRESET when a reload cancels a read in flight): asked
    // again; a request the page gave up on is let go
    await page.route('**/summary/', async (route) => {
      for (let tries = 1; ; tries++) {
        try {
          const res = await route.fetch();
          await route.fulfill({ response: res, json: { ...(await res.json()), total_price: 1234567.89 } });
          return;
        } catch {
          if (tries === 3) return route.abort().catch(() => undefined);
        }
      }
    });
    try {
      await page.reload();
      await page.locator('[data-event-id="e2"]').waitFor();
      // the summary arrives after the cards (the session's own total shows until then; CI, under load)
      await expect.poll(() => page.locator('.stat', { hasText: 'Total' }).locator('.stat-value').textContent(), SLOW).toBe('$1,234,567.89');
      expect(await page.evaluate(() => [...document.querySelectorAll('.stat-value')].filter((e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > innerWidth).length)).toBe(0);
    } finally {
      await page.unroute('**/summary/');
    }
    expect((await page.locator('[data-event-id]').first().boundingBox())!.y + 150).toBeLessThanOrEqual(640);
    await page.setViewportSize({ width: 360, height: 740 });
    await page.locator('[data-event-id="e2"]').click();
    await page.getByRole('form', { name: 'Correct this card' }).waitFor();
    // Save on the sheet's first screen (it was 900 px down, under the picture and every field)
    const save = await page.getByRole('button', { name: 'Save correction' }).boundingBox();
    expect(save!.y + save!.height).toBeLessThanOrEqual(740);
    expect(await smallTaps()).toEqual([]);
    await page.getByRole('button', { name: 'Hide the card' }).click();
    // the keyboard back on the card the sheet was opened from (h166: the grid was still inert, and the focus fell to the page's top)
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-event-id') ?? document.activeElement?.tagName), SLOW).toBe('e2');
    await page.goto(`${base}/console#/sessions`);
    await page.locator('main table').waitFor();
    // every column of the list within the screen: no sideways scrolling to a session's cards and total
    expect(await page.evaluate(() => [...document.querySelectorAll('.table-wrap')].map((w) => w.scrollWidth - w.clientWidth))).toEqual([0]);
    expect(await page.locator('main table tbody tr').first().getByText(/\$|not priced/).count()).toBeGreaterThan(0);
    expect(await smallTaps()).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('shows a name written right to left from its start, and a card number in Arabic-Indic digits before its set (h146)', async () => {
    const name = 'بطاقة بيكاتشو الذهبية النادرة جدا من المجموعة الأولى النسخة الأولى';
    expect((await h.request('POST', cs(`session/${sessionId}/identifications/`), { body: { identifications: [{ event_id: 'rtl1', name, card_number: '٥٨/١٠٢', set_name: 'المجموعة الأساسية — الطبعة الأولى', price: 3 }] } })).statusCode).toBe(200);
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    const card = page.locator('[data-event-id="rtl1"]');
    await card.waitFor();
    // a grade badge is read as a grade, not a bare number (h138)
    expect(await page.locator('[data-event-id="e1"]').getAttribute('aria-label') ?? (await page.getByRole('button', { name: /Charmander/ }).first().textContent())).toMatch(/grade 8\.5/);
    const [dir, nameFirstVisible, numberVisible] = await card.evaluate((el) => {
      const n = el.querySelector('.card-name') as HTMLElement;
      const box = n.getBoundingClientRect();
      // the name's first letter within its box: with dir auto it starts at the right and the cut is at its end
      const range = document.createRange();
      range.setStart(n.firstChild!, 0);
      range.setEnd(n.firstChild!, 1);
      const first = range.getBoundingClientRect();
      const set = el.querySelector('.card-set') as HTMLElement;
      const num = set.querySelector('bdi')!.getBoundingClientRect();
      const s = set.getBoundingClientRect();
      return [getComputedStyle(n).direction, first.left >= box.left - 1 && first.right <= box.right + 1, num.left >= s.left - 1 && num.right <= s.right + 1];
    });
    expect([dir, nameFirstVisible, numberVisible]).toEqual(['rtl', true, true]);
  });

  it("gives the focus back to Rename after a rename is saved (h138: it fell to the page's start)", async () => {
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await page.getByRole('button', { name: 'Rename' }).click();
    const field = page.getByLabel('Session name');
    const before = await field.inputValue();
    await field.fill(`${before} (renamed)`);
    await field.press('Enter');
    await page.getByRole('heading', { name: `${before} (renamed)` }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.hasAttribute('data-rename') ?? false), SLOW).toBe(true);
    // and back, for the tests after
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Session name').fill(before);
    await page.getByLabel('Session name').press('Enter');
    await page.getByRole('heading', { name: before, exact: true }).waitFor();
    // Escape cancels the form as Cancel does, the focus back on Rename (it stayed open, h240)
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Session name').fill('not kept');
    await page.getByLabel('Session name').press('Escape');
    await expect.poll(() => page.getByLabel('Session name').count(), SLOW).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.hasAttribute('data-rename') ?? false), SLOW).toBe(true);
    await page.getByRole('heading', { name: before, exact: true }).waitFor();
  });

  it('keeps the phone sheet usable by keyboard: it scrolls on a short screen too, and Tab goes round inside it (h138)', async () => {
    // 200 % zoom on a 1280 × 860 laptop: narrow and short, where the sheet's fields ran off the screen
    await page.setViewportSize({ width: 640, height: 430 });
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await page.locator('[data-event-id="e2"]').click();
    await page.getByRole('form', { name: 'Correct this card' }).waitFor();
    const sheet = page.locator('#card-editor');
    expect(await sheet.evaluate((el) => [getComputedStyle(el).overflowY, el.scrollHeight > el.clientHeight, el.getBoundingClientRect().bottom <= innerHeight + 1])).toEqual(['auto', true, true]);
    // the note, far down the sheet, reached by the keyboard is on the screen
    await page.getByLabel('note', { exact: true }).focus();
    const note = (await page.getByLabel('note', { exact: true }).boundingBox())!;
    expect(note.y).toBeGreaterThanOrEqual(0);
    expect(note.y + note.height).toBeLessThanOrEqual(430);
    // Shift+Tab from the sheet's first field stays in the sheet (it went to the filter box the sheet covers)
    await page.setViewportSize({ width: 390, height: 844 });
    // a sheet over the page is said as a dialog (it was "complementary", h240), not modal: the page above stays in use (h248)
    await expect.poll(() => sheet.evaluate((el) => [el.getAttribute('role'), el.getAttribute('aria-modal')]), SLOW).toEqual(['dialog', null]);
    await sheet.locator('input, button, select, textarea, a[href]').first().focus();
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('#card-editor'))).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('#card-editor'))).toBe(true);
    await page.getByRole('button', { name: 'Hide the card' }).click();
    // a phone held sideways (wider than the sheet's breakpoint: the side panel, the page scrolling it) and the narrow
    // short sheet: no field Shift+Tab reaches is under the sticky head (h144)
    for (const [width, height] of [[915, 412], [640, 430]] as const) {
      await page.setViewportSize({ width, height });
      await page.locator('[data-event-id="e2"]').click();
      await page.getByRole('form', { name: 'Correct this card' }).waitFor();
      await page.getByRole('button', { name: 'Save correction' }).focus();
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press('Shift+Tab');
        const [top, headBottom, name] = await page.evaluate(() => [document.activeElement!.getBoundingClientRect().top, document.querySelector('.drawer-head')!.getBoundingClientRect().bottom, (document.activeElement as HTMLInputElement).name || document.activeElement!.tagName]);
        expect(top, `${width}×${height} ${name}`).toBeGreaterThanOrEqual(headBottom - 1);
      }
      await page.getByRole('button', { name: 'Hide the card' }).click();
    }
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('shows no total for an empty session and "not priced" for cards without prices, not $0.00 (h342)', async () => {
    const unpriced = await createSession(h, { name: 'Bulk box h342', game: 'TCG' });
    expect((await h.request('POST', cs(`session/${unpriced}/identifications/`), { body: { identifications: [{ event_id: 'u1', name: 'Caterpie' }, { event_id: 'u2', name: 'Weedle' }] } })).statusCode).toBe(200);
    const empty = await createSession(h, { name: 'Empty case h342', game: 'TCG' });
    expect((await h.request('POST', cs(`session/${empty}/close/`))).statusCode).toBe(200);
    await page.goto(`${base}/console#/sessions?q=h342`);
    await expect.poll(() => page.locator('table.list tbody tr').count(), SLOW).toBe(2);
    const total = (name: string) => page.locator('table.list tbody tr', { has: page.getByRole('link', { name }) }).locator('td[data-label="Total"]');
    expect(await total('Bulk box h342').textContent()).toBe('not priced');
    expect(await total('Bulk box h342').getAttribute('title')).toMatch(/No card in this session has a price above \$0\.00/);
    expect(await total('Empty case h342').textContent()).toBe('—');
    // a priced session keeps its money
    await page.goto(`${base}/console#/sessions?q=Friday`);
    await expect.poll(() => total('Friday stream').textContent(), SLOW).toMatch(/^\$\d/);
    await page.goto(`${base}/console#/sessions/${empty}`);
    await page.getByRole('heading', { name: 'Empty case h342' }).waitFor(STEP);
    expect(await page.locator('.stat', { hasText: 'Total' }).locator('.stat-value').textContent()).toBe('—');
    // a closed session says how cards get in, not that a scanner is adding them
    await page.getByText(/^No cards: the session is closed\. Reopen it to add cards/).waitFor(STEP);
  });

  it("lists an app's recognition requests and opens them, says how a grading request's photos went, and keeps a long session name and an unset game plain (h342)", async () => {
    // an app's asynchronous recognition: a card it names (with prices), a photo by link, and data that is no image
    const cut = await sharp(photoPath(cardPhoto)).extract({ left: 100, top: 250, width: 520, height: 680 }).jpeg({ quality: 92 }).toBuffer();
    const sent = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'tcg_id', records: [{ _id: 'counter-1', _base64: cut.toString('base64'), price_stats: true }, { _url: `${imagesBase}/${cardPhoto}` }, { _base64: 'bm90IGFuIGltYWdl' }] } });
    expect(sent.statusCode, sent.body).toBe(201);
    // and a grading request whose only photo is too small to grade: DONE, its record failed
    const tiny = await sharp(photoPath(gradePhoto)).resize({ width: 160 }).jpeg().toBuffer();
    const tinyGrade = await h.request('POST', '/account/v2/request/', { body: { type: 'card-grader', endpoint: 'grade', records: [{ _base64: tiny.toString('base64') }] } });
    expect(tinyGrade.statusCode, tinyGrade.body).toBe(201);
    const done = async (id: string) => (await h.request('GET', `/account/v2/request/${id}/status`)).json().status as string;
    await expect.poll(() => done(sent.json().id), { timeout: 60_000 }).toBe('DONE');
    await expect.poll(() => done(tinyGrade.json().id), { timeout: 60_000 }).toBe('DONE');

    await page.goto(`${base}/console#/recognition`);
    await page.getByText('Recent requests from apps').click();
    const line = page.locator('.recent-requests li').first();
    await expect.poll(() => line.getByTestId('request-outcome').textContent(), SLOW).toMatch(/Alphamon.* · [12] of 3 not read$/);
    await line.getByRole('button').click();
    const view = page.locator('.request-view');
    await view.getByRole('heading', { name: /^Request of / }).waitFor(STEP);
    expect(await view.getByTestId('best-match').first().textContent()).toMatch(/Alphamon/);
    expect(await view.getByTestId('match-price').first().textContent()).toMatch(/^Price about \$\d/);
    // each photo read is shown from the server's preview (h365), the one sent as data too, with its card's box drawn
    // where the card is; the data that is no image has none, and says why
    const photo = view.locator('.photo-boxes img');
    await expect.poll(() => photo.count(), SLOW).toBe(2);
    for (const i of [0, 1]) {
      expect(await photo.nth(i).getAttribute('src')).toMatch(/\/media\/[0-9a-f]{32}\.jpg\?expires=/);
      await expect.poll(() => photo.nth(i).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), SLOW).toBeGreaterThan(0);
    }
    // the cut sent as data (520 × 680) is kept at 392 × 512, and its box, drawn in the photo's pixels over it, covers
    // the card: the card fills most of the cut
    expect(await photo.first().evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([392, 512]);
    const shown = (await photo.first().boundingBox())!;
    const box = (await view.locator('.photo-boxes').first().locator('rect').first().boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(shown.x - 1);
    expect(box.y).toBeGreaterThanOrEqual(shown.y - 1);
    expect(box.x + box.width).toBeLessThanOrEqual(shown.x + shown.width + 1);
    expect(box.y + box.height).toBeLessThanOrEqual(shown.y + shown.height + 1);
    expect((box.width * box.height) / (shown.width * shown.height)).toBeGreaterThan(0.4);
    expect(await view.locator('.no-photo').allTextContents()).toEqual(['No photo: it could not be read (see below).']);
    expect(await view.getByTestId('request-record-status').nth(2).textContent()).toMatch(/^Could not be read: Error Loading Image/);
    await view.scrollIntoViewIfNeeded();
    await shot('recognition-request');

    // grading: the failed photo's request is not just "Done", and the graded one has its card's picture
    await page.goto(`${base}/console#/grading`);
    await page.getByText('Recent grading requests').click();
    const lines = page.locator('.recent-requests li');
    await expect.poll(() => lines.first().getByTestId('request-outcome').textContent(), SLOW).toBe(' · 1 of 1 not graded');
    expect(await lines.first().locator('img').count()).toBe(0);
    const graded = lines.filter({ hasText: /grade \d/ }).first();
    await graded.waitFor(STEP);
    await expect.poll(() => graded.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), SLOW).toBeGreaterThan(0);
    await shot('grading-recent');

    // a long session name wraps from the left of its row (it sat at the row's right end beside "← Sessions")
    const long = await createSession(h, { name: `Estate lot h342 ${'three binders, two shoeboxes and a tin of vintage cards, '.repeat(4)}`.slice(0, 255) });
    await page.goto(`${base}/console#/sessions/${long}`);
    const title = page.locator('#session-title');
    await title.waitFor(STEP);
    const back = (await page.locator('.back').boundingBox())!;
    const head = (await title.boundingBox())!;
    expect(head.x - (back.x + back.width) < 40 || head.y >= back.y + back.height, `title at x ${head.x}, the back link ends at ${back.x + back.width}`).toBe(true);
    expect(head.x + head.width).toBeLessThanOrEqual(1280);
    expect((await page.locator('.actions').first().boundingBox())!.y).toBeGreaterThanOrEqual(head.y + head.height);
    // on a phone, three lines at most, the whole name in its title, and nothing wider than the screen
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await expect.poll(() => title.evaluate((el) => el.clientHeight / parseFloat(getComputedStyle(el).lineHeight)), SLOW).toBeLessThanOrEqual(3.05);
      expect(await title.getAttribute('title')).toMatch(/^Estate lot h342/);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }

    // a session with no game is "not set", not "Mixed": the list cannot know its cards' games
    await createSession(h, { name: 'No game h342' });
    await page.goto(`${base}/console#/sessions?q=No game h342`);
    const game = page.locator('table.list tbody tr', { has: page.getByRole('link', { name: 'No game h342' }) }).locator('td[data-label="Game"]');
    await expect.poll(() => game.textContent(), SLOW).toBe('not set');
    expect(await game.locator('[title]').getAttribute('title')).toMatch(/no cards yet/);
  }, 150_000);

  // last: it signs out
  it("forgets the account's page on sign-out: the next person is not shown the last one's session id (h106)", async () => {
    await page.goto(`${base}/console#/sessions/${sessionId}`);
    await page.locator('[data-event-id="e2"]').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel(/token/i).first().waitFor();
    expect(page.url()).not.toContain(sessionId);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

});
