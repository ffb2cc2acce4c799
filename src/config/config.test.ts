import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLimits, defaultPrices, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.dataDir.endsWith('/data')).toBe(true);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.prices['cardstream.session.create']).toBe(1);
    expect(c.limits).toEqual(defaultLimits);
    expect(c.pgPoolSize).toBeGreaterThanOrEqual(4);
  });

  it('reads the environment', () => {
    const c = loadConfig({ PORT: '9000', LOUPE_DATA_DIR: '/tmp/x', DATABASE_URL: 'postgres://h/db', LOUPE_PRICES: '{"cardstream.session.create": 3}', LOUPE_RATE_LIMIT: '5', LOUPE_PUBLIC_URL: 'https://loupe.example.com/' });
    expect(c).toMatchObject({ port: 9000, dataDir: '/tmp/x', databaseUrl: 'postgres://h/db', publicUrl: 'https://loupe.example.com', rateLimit: { perSecond: 5 } });
    expect(c.prices['cardstream.session.create']).toBe(3);
  });

  it('refuses nonsense instead of guessing', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    // Text search's parts: all by default, the framed view among them; framed needs objects.
    expect(loadConfig({}).seen).toEqual(['objects', 'framed', 'faces', 'colors', 'ocr']);
    expect(loadConfig({ LOUPE_SEEN: 'objects,colors' }).seen).toEqual(['objects', 'colors']);
    expect(() => loadConfig({ LOUPE_SEEN: 'framed,colors' })).toThrow(/framed.*objects/);
    expect(() => loadConfig({ LOUPE_SEEN: 'object' })).toThrow(/unknown part/);
    expect(() => loadConfig({ LOUPE_PRICES: '{bad' })).toThrow(/LOUPE_PRICES/);
    expect(() => loadConfig({ LOUPE_PRICES: '{"cardstream.session.create": -1}' })).toThrow(/non-negative/);
    // more than an account can hold (h236: it started, and every call was a 400 blaming the client)
    expect(() => loadConfig({ LOUPE_PRICES: '{"image_matching.visual_hash": 1e20}' })).toThrow(/LOUPE_PRICES.image_matching.visual_hash must be at most 1000000000000/);
    expect(loadConfig({ LOUPE_PRICES: '{"image_matching.visual_hash": 1000000000000}' }).prices['image_matching.visual_hash']).toBe(1_000_000_000_000);
    // a mistyped price name would leave the real price as it was
    expect(() => loadConfig({ LOUPE_PRICES: '{"cardstream.session.creat": 5}' })).toThrow('LOUPE_PRICES names no price "cardstream.session.creat" (did you mean "cardstream.session.create"?)');
    expect(loadConfig({}).priceRates).toEqual({});
    expect(loadConfig({ LOUPE_PRICE_RATES: '{"EUR": 1.08, "GBP": 1.27}' }).priceRates).toEqual({ EUR: 1.08, GBP: 1.27 });
    expect(() => loadConfig({ LOUPE_PRICE_RATES: '{"euro": 1.08}' })).toThrow(/not a currency code/);
    expect(() => loadConfig({ LOUPE_PRICE_RATES: '{"EUR": 0}' })).toThrow(/above 0/);
  });

  it('names a setting of the wrong form at start, not as a 500 or a library message later', () => {
    expect(() => loadConfig({ PORT: '8397.5' })).toThrow('PORT must be a whole number, 0 or more, got "8397.5"');
    expect(() => loadConfig({ LOUPE_RETENTION_DAYS: '0' })).toThrow(/LOUPE_RETENTION_DAYS must be a whole number, 1 or more/);
    expect(() => loadConfig({ LOUPE_RETENTION_DAYS: '0.5' })).toThrow(/LOUPE_RETENTION_DAYS must be a whole number, 1 or more/);
    // 0 where it means nothing an operator could want is refused, not replaced by the default without a word
    for (const name of ['LOUPE_VISION_THREADS', 'LOUPE_VISION_QUEUE', 'LOUPE_VISION_TIMEOUT_MS', 'LOUPE_QUEUE_LEASE_MS', 'LOUPE_QUEUE_POLL_MS', 'LOUPE_QUEUE_MAX_ATTEMPTS', 'LOUPE_WEBHOOK_TIMEOUT_MS', 'LOUPE_MEDIA_LINK_TTL_S', 'LOUPE_MEDIA_PUBLIC_LINK_TTL_S', 'LOUPE_LARGE_BODIES', 'LOUPE_VISION_LONG_THREADS', 'LOUPE_PG_POOL']) {
      expect(() => loadConfig({ [name]: '0' }), name).toThrow(`${name} must be a whole number, 1 or more, got "0"`);
    }
    expect(loadConfig({ LOUPE_QUEUE_WORKERS: '0' }).queue.workers).toBe(0);
    // ten images of the largest size a slot
    expect(loadConfig({}).queue.prefetchBytes).toBe(2 * 10 * 24 * 1024 * 1024);
    expect(loadConfig({ LOUPE_QUEUE_WORKERS: '1' }).queue.prefetchBytes).toBe(10 * 24 * 1024 * 1024);
    expect(loadConfig({ LOUPE_QUEUE_PREFETCH_MB: '0' }).queue.prefetchBytes).toBe(0);
    expect(() => loadConfig({ LOUPE_QUEUE_PREFETCH_MB: '64MB' })).toThrow('LOUPE_QUEUE_PREFETCH_MB must be a whole number, 0 or more, got "64MB"');
    expect(() => loadConfig({ LOUPE_FAST_JPEG: 'maybe' })).toThrow(/LOUPE_FAST_JPEG must be one of/);
    expect(() => loadConfig({ LOUPE_FAST_JPEG: 'off' })).not.toThrow();
    expect(loadConfig({ LOUPE_RETENTION_DAYS: '1' }).queue.retentionMs).toBe(86_400_000);
    expect(() => loadConfig({ LOUPE_PUBLIC_URL: 'not-a-url' })).toThrow(/LOUPE_PUBLIC_URL must be an absolute http\(s\) URL/);
    expect(() => loadConfig({ LOUPE_PUBLIC_URL: 'ftp://files.example.com' })).toThrow(/LOUPE_PUBLIC_URL must be an http\(s\) URL/);
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/);
    // an env file's trailing space is trimmed as for every other setting (h317: it stopped the start)
    expect(loadConfig({ LOG_LEVEL: 'debug ' }).logLevel).toBe('debug');
    expect(loadConfig({ LOUPE_CARD_LOCATOR: ' classical ' }).vision.cardLocator).toBe('classical');
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x/db' })).toThrow(/DATABASE_URL must be a PostgreSQL URL/);
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h:5432/db' }).databaseUrl).toBe('postgresql://u@h:5432/db');
    expect(() => loadConfig({ LOUPE_URL_ALLOWLIST: '10.0.0.0/99' })).toThrow(/LOUPE_URL_ALLOWLIST: "10.0.0.0\/99" is not a host name/);
    expect(() => loadConfig({ LOUPE_URL_ALLOWLIST: 'images.lan:8080' })).toThrow(/LOUPE_URL_ALLOWLIST/);
    expect(loadConfig({ LOUPE_URL_ALLOWLIST: '127.0.0.1, 10.0.0.0/8, images.lan, ::1, fd00::/8' }).urlAllowList).toEqual(['127.0.0.1', '10.0.0.0/8', 'images.lan', '::1', 'fd00::/8']);
    // on and off as operators write them; anything else named (yes was read as off)
    for (const [v, on] of [['1', true], ['true', true], ['yes', true], ['ON', true], ['0', false], ['no', false], ['off', false], ['', false]] as const) expect(loadConfig({ LOUPE_TRUST_PROXY: v }).trustProxy, v).toBe(on);
    expect(() => loadConfig({ LOUPE_TRUST_PROXY: 'enabled' })).toThrow('LOUPE_TRUST_PROXY must be one of 1, true, yes, on (or 0, false, no, off), or the proxies\' IP addresses and CIDR ranges, comma-separated; got "enabled"');
    // blank settings are unset, a blank entry in a list is refused (h113)
    expect(loadConfig({ HOST: ' ' }).host).toBe('0.0.0.0');
    expect(loadConfig({ LOUPE_FILE_ROOT: ' ' }).fileRoot).toBeUndefined();
    expect(() => loadConfig({ LOUPE_WEBHOOK_RETRIES_S: '5, 15,' })).toThrow(/empty entry/);
    expect(loadConfig({ LOUPE_WEBHOOK_RETRIES_S: ' 5, 15 ' }).webhooks.retryDelaysMs).toEqual([5000, 15000]);
    // the proxies' own addresses: only what they add to X-Forwarded-For is believed (h112: a client's own header named its address)
    expect(loadConfig({ LOUPE_TRUST_PROXY: ' 127.0.0.1, 10.0.0.0/8,::1 ' }).trustProxy).toBe('127.0.0.1,10.0.0.0/8,::1');
    for (const bad of ['127.0.0.1,proxy.local', '10.0.0.0/33', '300.1.1.1'.replace('300', '1.2.3.4.5')]) expect(() => loadConfig({ LOUPE_TRUST_PROXY: bad }), bad).toThrow(/is not an IP address or CIDR range/);
    // an embedder name is checked at start, not at the first descriptor (a 500 there)
    expect(() => loadConfig({ LOUPE_EMBEDDER: 'nosuch' })).toThrow(/LOUPE_EMBEDDER must be one of mobilenet_v2, mobilenet_v2_mid, inception_v3, centernet/);
    expect(loadConfig({ LOUPE_EMBEDDER: 'inception_v3' }).vision.embedder).toBe('inception_v3');
    expect(() => loadConfig({ PORT: '99999' })).toThrow('PORT must be a port number, 0 to 65535, got "99999"');
    for (const port of ['0x4797', '1e3', '-1', '80 80']) expect(() => loadConfig({ PORT: port }), port).toThrow(`PORT must be a whole number, 0 or more, got "${port}"`);
    expect(() => loadConfig({ LOUPE_DEFAULT_CREDITS: '2000000000000' })).toThrow(/LOUPE_DEFAULT_CREDITS must be at most 1000000000000/);
    // an empty data folder setting is unset, as every other (it was the current folder)
    expect(loadConfig({ LOUPE_DATA_DIR: '' }).dataDir).toBe(loadConfig({}).dataDir);
  });

  it('warms the card detector with the image models unless told otherwise', () => {
    expect(loadConfig({}).vision.warm).toEqual(['embed', 'faces', 'objects', 'pose', 'ocr', 'card']);
    expect(loadConfig({ LOUPE_VISION_WARM: 'ocr,card' }).vision.warm).toEqual(['ocr', 'card']);
    expect(loadConfig({ LOUPE_VISION_WARM: 'none' }).vision.warm).toEqual([]);
    expect(() => loadConfig({ LOUPE_VISION_WARM: 'cards' })).toThrow(/unknown model "cards"/);
  });
});

describe('docs/configuration.md lists the prices', () => {
  it('names every priced call in its LOUPE_PRICES row, as the start error says (the row once gave one price as the default)', () => {
    const listing = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/configuration.md'), 'utf8');
    const row = listing.split('\n').find((l) => l.startsWith('| `LOUPE_PRICES`'))!;
    expect(Object.keys(defaultPrices).filter((name) => !row.includes(`\`${name}\``))).toEqual([]);
  });
});
