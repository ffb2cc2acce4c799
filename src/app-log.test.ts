import { describe, expect, it } from 'vitest';
import { redactedUrl } from './app.ts';

describe('request URLs in the log', () => {
  it('leave out the signature of a signed media link, and nothing else', () => {
    expect(redactedUrl('/media/s/a.jpg?expires=1796000000&sig=0123abcd')).toBe('/media/s/a.jpg?expires=1796000000&sig=[redacted]');
    expect(redactedUrl('/media/s/a.jpg?sig=0123abcd&expires=1')).toBe('/media/s/a.jpg?sig=[redacted]&expires=1');
    expect(redactedUrl('/cardstream/v2/session/?page=2&design=x')).toBe('/cardstream/v2/session/?page=2&design=x');
  });
});
