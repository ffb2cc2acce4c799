import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { logSerializers, redactedUrl } from './app.ts';

describe('request URLs in the log', () => {
  it('leave out the signature of a signed media link, and nothing else', () => {
    expect(redactedUrl('/media/s/a.jpg?expires=1796000000&sig=0123abcd')).toBe('/media/s/a.jpg?expires=1796000000&sig=[redacted]');
    expect(redactedUrl('/media/s/a.jpg?sig=0123abcd&expires=1')).toBe('/media/s/a.jpg?sig=[redacted]&expires=1');
    // allRecords' next link carries the filter its first page was sent in a body (h235)
    expect(redactedUrl('/similarity/photos/v2/allRecords?size=1&page=2&after=7&filter=%7B%22email%22%3A%22erika%40example.com%22%7D&fields_to_return=a')).toBe('/similarity/photos/v2/allRecords?size=1&page=2&after=7&filter=[redacted]&fields_to_return=a');
    expect(redactedUrl('/cardstream/v2/session/?page=2&design=x')).toBe('/cardstream/v2/session/?page=2&design=x');
    // a token in the query string, refused by the server, is no less a live token (h106)
    expect(redactedUrl('/cardstream/v2/ping/?token=lp_yTnEQabc')).toBe('/cardstream/v2/ping/?token=[redacted]');
    expect(redactedUrl('/cardstream/v2/session/?search=x&api_key=secret&Access_Token=t')).toBe('/cardstream/v2/session/?search=x&api_key=[redacted]&Access_Token=[redacted]');
    expect(redactedUrl('/cardstream/v2/session/?search=lp_abc12345&page=1')).toBe('/cardstream/v2/session/?search=[redacted]&page=1');
    // bare, in the path, percent-encoded (h111)
    expect(redactedUrl('/cardstream/v2/ping/?lp_Vw3Kabcdefgh')).toBe('/cardstream/v2/ping/?[redacted]');
    expect(redactedUrl('/nosuch/lp_Vw3Kabcdefgh/x')).toBe('/nosuch/[redacted]/x');
    expect(redactedUrl('/s/?q=lp%5FVw3Kabcdefgh&page=2')).toBe('/s/?q=[redacted]&page=2');
    // words that hold lp_ are words (h116)
    expect(redactedUrl('/similarity/custom/v2/help_center_search?search=yelp_reviews_2024')).toBe('/similarity/custom/v2/help_center_search?search=yelp_reviews_2024');
    expect(redactedUrl('/cardstream/v2/session/?search=keys&monkey=1')).toBe('/cardstream/v2/session/?search=keys&monkey=1');
  });

  it('in every line that names a url, not only the request line (a client hanging up on a media download logged the link whole)', () => {
    const lines: string[] = [];
    const { log } = Fastify({ logger: { serializers: logSerializers, stream: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) } });
    log.info({ url: '/media/ab.png?expires=1796097900&sig=b4ba3eea7b59', method: 'GET' }, 'request aborted by its client');
    log.info({ req: { method: 'GET', url: '/media/ab.png?expires=1&sig=ffff' } }, 'incoming request');
    expect(lines.join('')).not.toMatch(/b4ba3eea|ffff/);
    expect(lines.join('')).toContain('sig=[redacted]');
  });
});
