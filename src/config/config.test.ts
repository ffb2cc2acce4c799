import { describe, expect, it } from 'vitest';
import { defaultLimits, loadConfig } from './config.ts';

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
    expect(() => loadConfig({ LOUPE_PRICES: '{"x": -1}' })).toThrow(/non-negative/);
    expect(loadConfig({}).priceRates).toEqual({});
    expect(loadConfig({ LOUPE_PRICE_RATES: '{"EUR": 1.08, "GBP": 1.27}' }).priceRates).toEqual({ EUR: 1.08, GBP: 1.27 });
    expect(() => loadConfig({ LOUPE_PRICE_RATES: '{"euro": 1.08}' })).toThrow(/not a currency code/);
    expect(() => loadConfig({ LOUPE_PRICE_RATES: '{"EUR": 0}' })).toThrow(/above 0/);
  });

  it('warms the card detector with the image models unless told otherwise', () => {
    expect(loadConfig({}).vision.warm).toEqual(['embed', 'faces', 'objects', 'pose', 'ocr', 'card']);
    expect(loadConfig({ LOUPE_VISION_WARM: 'ocr,card' }).vision.warm).toEqual(['ocr', 'card']);
    expect(loadConfig({ LOUPE_VISION_WARM: 'none' }).vision.warm).toEqual([]);
    expect(() => loadConfig({ LOUPE_VISION_WARM: 'cards' })).toThrow(/unknown model "cards"/);
  });
});
