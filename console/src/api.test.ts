import { describe, expect, it } from 'vitest';
import { detailOf, withWorkspace } from './api.ts';

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
});
