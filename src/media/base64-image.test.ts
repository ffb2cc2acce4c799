import { describe, expect, it } from 'vitest';
import { ImageLoadError } from './image-load-error.ts';
import { decodeBase64Image, decodeBase64ImageInSteps } from './base64-image.ts';
import { loopTurnsDuring } from '../../test/helpers/loop-turns.ts';

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

describe('decodeBase64ImageInSteps', () => {
  const outcome = async (run: () => Buffer | Promise<Buffer>) => {
    try {
      return { bytes: (await run()).toString('hex') };
    } catch (err) {
      const e = err as ImageLoadError;
      return { error: e.message, status: e.status, code: e.code };
    }
  };

  it('answers what decodeBase64Image answers, slice by slice: bytes, broken text, padding across slices, whitespace, URLs, the limit', async () => {
    const b64 = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256)).toString('base64');
    const fixed = [b64, `data:image/jpeg;base64,${b64}`, Buffer.from(b64, 'base64').toString('base64url'), b64.replace(/(.{3})/g, '$1\n '), `  ${b64}  `, `${b64.slice(0, -4)}QQ==`, 'QQ' + ' '.repeat(40) + '==', `${b64.slice(0, 40)}=${b64.slice(40)}`, `${b64}!`, 'https://cdn.example.com/' + 'card'.repeat(10) + '.jpg', ' '.repeat(50), 'data:image/png;base64,' + ' '.repeat(30), `${b64}Q`, `${b64}===`];
    // random texts of the alphabet, its padding, whitespace and a stranger, of every length modulo 4
    const chars = 'ABCDabcd0189+/-_==  \n!';
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const fuzz = Array.from({ length: 400 }, () => Array.from({ length: 17 + Math.floor(random() * 60) }, () => (random() < 0.9 ? 'QUJDwxyz09+/'[Math.floor(random() * 12)] : chars[Math.floor(random() * chars.length)])).join(''));
    for (const input of [...fixed, ...fuzz]) {
      for (const [max, step] of [[1000, 8], [1000, 12], [220, 16], [10, 4]] as const) {
        expect(await outcome(() => decodeBase64ImageInSteps(input, max, step)), `${JSON.stringify(input)} max ${max} step ${step}`).toEqual(await outcome(() => decodeBase64Image(input, max)));
      }
    }
  });

  it('lets the event loop turn between slices', async () => {
    const image = Buffer.alloc(3 * 1024 * 1024, 7);
    const { result, turns } = await loopTurnsDuring(() => decodeBase64ImageInSteps(image.toString('base64'), 4 * 1024 * 1024));
    expect(result.equals(image)).toBe(true);
    // four slices of 1 MiB of text, the loop let go after each; decoded at once, it turns none
    expect(turns).toBeGreaterThanOrEqual(4);
  });
});
