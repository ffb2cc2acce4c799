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

/**
 * About how much it holds under a burst (every worker on ten 12-MP photos, a grading job beside): the idle figure and
 * about 0.35 GB a worker (h225, one worker warming all, under a 1-GiB cap: 0.69 GB idle, 0.99 GB after one call of ten
 * 12-MP photos, killed by the kernel under four such calls and two grading jobs; 1.37 GB at most under 1.5 GB).
 */
export function loadMemoryEstimate(threads: number, warm: readonly string[]): number {
  return idleMemoryEstimate(threads, warm) + Math.max(1, threads) * 0.35e9;
}

/** Whether a start with this estimate should be warned of: idle over 70 % of the limit, or under load over 90 %. */
export function memoryTight(limit: number, threads: number, warm: readonly string[]): boolean {
  return idleMemoryEstimate(threads, warm) > 0.7 * limit || loadMemoryEstimate(threads, warm) > 0.9 * limit;
}
