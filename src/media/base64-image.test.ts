import { describe, expect, it } from 'vitest';
import { ImageLoadError } from './image-load-error.ts';
import { decodeBase64Image } from './base64-image.ts';

const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xfb, 0xff]);

describe('decodeBase64Image', () => {
  it('decodes plain, data-URL, URL-safe and wrapped base64 to the same bytes', () => {
    const b64 = bytes.toString('base64');
    for (const input of [b64, `data:image/jpeg;base64,${b64}`, bytes.toString('base64url'), b64.replace(/(.{4})/g, '$1\n'), `  ${b64}  `]) {
      expect(decodeBase64Image(input, 1000).equals(bytes)).toBe(true);
    }
  });

  it.each(['%%%%', 'abc$', 'ab==cd', 'a'])('rejects broken base64 %j', (input) => {
    expect(() => decodeBase64Image(input, 1000)).toThrow(ImageLoadError);
    try {
      decodeBase64Image(input, 1000);
    } catch (err) {
      expect((err as ImageLoadError).code).toBe('invalid_base64');
    }
  });

  it('says so when a URL is sent where the bytes go (h264)', () => {
    expect(() => decodeBase64Image('https://cdn.example.com/card.jpg', 1000)).toThrow(/is a URL, not base64/);
    expect(() => decodeBase64Image('%%%%', 1000)).toThrow(/the image is not valid base64$/);
  });

  it('rejects empty input and input over the byte limit before decoding', () => {
    expect(() => decodeBase64Image('', 1000)).toThrow(/empty/);
    try {
      decodeBase64Image(Buffer.alloc(2000).toString('base64'), 1000);
      expect.unreachable();
    } catch (err) {
      expect((err as ImageLoadError).status).toBe(413);
    }
  });
});
