import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.ts';

const staticDir = path.resolve(import.meta.dirname, '../../node_modules/@fastify/swagger-ui/static');
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
if (!chromium) console.warn('docs page browser test skipped: no Chromium (apt-get install chromium; .ci/run installs it)');

/** The API documentation page, over a real socket as a browser sees it. */
describe('API documentation page (/docs)', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness('sqlite', { vision: { threads: 1, maxQueue: 4, taskTimeoutMs: 30_000, warm: [], embedder: '' } });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => h?.close());

  it('serves every static file of the page whole, with its type, and counts none of them as still running', async () => {
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    // the token is pasted here: its own files only, and no Referer out (h185; the browser test below draws it under this)
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'; .*img-src 'self' data: blob:; .*frame-ancestors 'none'/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    // Resolved as a browser resolves them, against the page's own URL.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css|png))"/g)].map((m) => new URL(m[1]!, page.url));
    const names = assets.map((u) => path.basename(u.pathname));
    expect(names).toEqual(expect.arrayContaining(['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-ui-standalone-preset.js', 'swagger-initializer.js']));
    const types: Record<string, RegExp> = { js: /javascript/, css: /text\/css/, png: /image\/png/ };
    for (const url of assets) {
      const name = path.basename(url.pathname);
      const res = await fetch(url);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toMatch(types[name.split('.').pop()!]!);
      const body = Buffer.from(await res.arrayBuffer());
      // The initializer is written by the plugin (it points the UI at /docs/json); the rest are files.
      if (name === 'swagger-initializer.js') {
        expect(body.toString()).toContain('SwaggerUIBundle');
        continue;
      }
      const onDisk = fs.readFileSync(path.join(staticDir, name));
      expect(body.length, name).toBe(onDisk.length);
      expect(body.equals(onDisk), name).toBe(true);
    }
    expect(h.app.loupe.inFlight.count).toBe(0);
  });

  it('refuses a path out of its folder in the house shape, with a listed code', async () => {
    // as curl sends it (fetch would fold the dots away)
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: new URL(base).port, path: '/docs/static/%2e%2e/package.json' }, (r) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode!, body }));
      }).on('error', reject);
    });
    expect(res.status).toBe(403);
    // was `client_error`, a code no list names
    expect(JSON.parse(res.body)).toMatchObject({ code: 'forbidden' });
    expect(res.body).not.toContain('"version"');
  });

  it.skipIf(!chromium)(
    'renders the operations list in a real browser',
    async () => {
      const { stdout } = await promisify(execFile)(chromium!, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--virtual-time-budget=20000', '--dump-dom', `${base}/docs`], { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 });
      // Swagger UI draws one "opblock" per operation once it has loaded the bundle and /docs/json.
      const operations = stdout.match(/class="opblock opblock-/g) ?? [];
      expect(operations.length).toBeGreaterThan(20);
      expect(stdout).toContain('/cardstream/v2/session/');
    },
    120_000,
  );
});
