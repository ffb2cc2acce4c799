/**
 * About how much memory the server holds idle with `threads` vision workers warming `warm` (measured on SQLite with the
 * Pokémon catalog, forty-first and forty-sixth sessions, h202: 0.19 GB with none, 0.50 GB one worker warming card and
 * OCR, 0.69–0.73 GB one worker warming all, 1.15 GB two): the process's own, then each worker's models.
 */
export function idleMemoryEstimate(threads: number, warm: readonly string[]): number {
  const base = 0.2e9;
  const humanModels = warm.some((m) => m === 'embed' || m === 'faces' || m === 'objects' || m === 'pose');
  const perWorker = humanModels ? 0.48e9 : warm.length ? 0.3e9 : 0.02e9;
  return base + Math.max(1, threads) * perWorker;
}
