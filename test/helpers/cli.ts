import { main } from '../../src/cli.ts';

/**
 * The admin command run in this process (its `main`, as bin/loupe.js calls it), its output
 * captured: a process per command took 2.5 s to start under tsx, minutes of the suite per backend.
 * test/cli.test.ts runs the binary itself for its exit codes and streams.
 */
export async function loupeInProcess(env: NodeJS.ProcessEnv, args: string[], terminal?: { answer: boolean }): Promise<{ code: number | undefined; stdout: string; stderr: string; asked: string[] }> {
  let stdout = '';
  let stderr = '';
  const asked: string[] = [];
  // `terminal`: run as at a terminal, each question answered so (without it, as in a script: no question)
  const confirm = terminal && (async (q: string) => (asked.push(q), terminal.answer));
  const code = await main(args, { env, out: (t) => (stdout += t), err: (t) => (stderr += t), ...(confirm ? { confirm } : {}) });
  return { code, stdout, stderr, asked };
}
