import { main } from '../../src/cli.ts';

/**
 * The admin command run in this process (its `main`, as bin/loupe.js calls it), its output
 * captured: a process per command took 2.5 s to start under tsx, minutes of the suite per backend.
 * test/cli.test.ts runs the binary itself for its exit codes and streams.
 */
export async function loupeInProcess(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number | undefined; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { env, out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { code, stdout, stderr };
}
