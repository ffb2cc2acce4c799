import { describe, expect, it } from 'vitest';
import { RepeatedFailureLog } from './repeated-failure-log.ts';

describe('a loop failing every second', () => {
  it('is logged when it starts failing, once a minute while it goes on, and when it works again', () => {
    const lines: [string, string, Record<string, unknown> | undefined][] = [];
    const log = new RepeatedFailureLog((level, message, details) => lines.push([level, message, details]), 'claiming webhooks');
    log.worked(0);
    for (let s = 0; s < 130; s++) log.failed(new Error('connect ECONNREFUSED'), s * 1000);
    log.worked(130_000);
    log.worked(131_000);
    expect(lines.map(([level, message]) => [level, message])).toEqual([
      ['error', 'claiming webhooks failed'],
      ['error', 'claiming webhooks still failing'],
      ['error', 'claiming webhooks still failing'],
      ['info', 'claiming webhooks works again'],
    ]);
    expect(lines[1]![2]).toMatchObject({ failures: 61 });
    expect(lines[3]![2]).toEqual({ failures: 130, seconds: 130 });
  });
});
