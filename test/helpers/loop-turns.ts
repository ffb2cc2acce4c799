/**
 * Counts the event loop's turns while `work` runs, by a callback that queues itself for the next turn: a 1 ms timer
 * counts only the turns 1 ms apart, so a faster machine saw fewer of them with the same code (h288).
 */
export async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let spinning = true;
  const spin = () => {
    turns++;
    if (spinning) setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { result: await work(), turns };
  } finally {
    spinning = false;
  }
}
