import { describe, expect, it, vi } from 'vitest';
import { ApiError, call, detailOf, withWorkspace, writeTimeoutMs } from './api.ts';

describe('api helpers', () => {
  it('adds the chosen workspace to card sessions and request calls only', () => {
    expect(withWorkspace('/cardstream/v2/session/', 'w1')).toBe('/cardstream/v2/session/?workspace=w1');
    expect(withWorkspace('/cardstream/v2/identification/?session=s&page=2', 'w 1')).toBe('/cardstream/v2/identification/?session=s&page=2&workspace=w%201');
    expect(withWorkspace('/account/v2/request/abc/status', 'w1')).toBe('/account/v2/request/abc/status?workspace=w1');
    expect(withWorkspace('/cardstream/v2/session/?workspace=w0', 'w1')).toBe('/cardstream/v2/session/?workspace=w0');
    expect(withWorkspace('/similarity/photos/v2/visualKNN', 'w1')).toBe('/similarity/photos/v2/visualKNN');
    expect(withWorkspace('/cardstream/v2/session/', null)).toBe('/cardstream/v2/session/');
  });

  it('reads the sentence to show from either error shape', () => {
    expect(detailOf(404, { detail: 'Session not found.', code: 'not_found' })).toEqual({ detail: 'Session not found.', code: 'not_found' });
    expect(detailOf(413, { status: { code: 413, text: 'The request body is too large.' } })).toEqual({ detail: 'The request body is too large.', code: '413' });
    expect(detailOf(502, undefined)).toEqual({ detail: 'The server answered 502.', code: '502' });
  });

  it('gives up on a correction the server never answers, and says so, instead of saving for ever', async () => {
    vi.useFakeTimers();
    const store = new Map<string, string>();
    vi.stubGlobal('sessionStorage', { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v), removeItem: (k: string) => store.delete(k) });
    // a frozen server: the request is neither answered nor refused
    vi.stubGlobal('fetch', (_url: string, init: { signal?: AbortSignal }) => new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))));
    try {
      const saving = call('PATCH', '/cardstream/v2/identification/1/', { body: { sold: true } }).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(writeTimeoutMs + 1);
      const err = await saving;
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 'timeout', detail: expect.stringMatching(/did not answer within 30 s/) });
      // a read too: one lost in a dead spot held a live session's updates and "Loading session…" for good (h203)
      const reading = call('GET', '/cardstream/v2/session/s/').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(writeTimeoutMs + 1);
      expect(await reading).toMatchObject({ code: 'timeout', detail: expect.stringMatching(/did not answer within 30 s: the connection may have dropped\. Try again\./) });
    } finally {
      vi.unstubAllGlobals();
      vi.useRealTimers();
    }
  });
});
