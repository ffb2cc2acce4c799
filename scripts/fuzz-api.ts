/**
 * The API fuzzer run long: `npx tsx scripts/fuzz-api.ts --seed 1 --cases 5000 [--only PATH-PREFIX] [--skip PATH-PREFIX]
 * [--replay 12,40] [--tiny-clip] [--no-catalog] [--by-operation]`. SQLite by default, PostgreSQL when DATABASE_URL is set (a scratch database of its own,
 * dropped at the end). Each failure is printed as the request that replays it (`--replay N` sends case N alone, the same
 * request whatever ran before it). The oracle and the mutations are test/helpers/api-fuzz.ts; the bounded run in CI is
 * test/http/api-fuzz.test.ts.
 */
import { describeRequest, runFuzz, type FuzzFailure } from '../test/helpers/api-fuzz.ts';
import { startHarness, startTinyClipHarness } from '../test/helpers/harness.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const list = (v: string | undefined) => (v ? v.split(',').filter(Boolean) : undefined);

const seed = Number(arg('seed') ?? 1);
const cases = Number(arg('cases') ?? 1000);
const only = list(arg('only'));
const skip = list(arg('skip'));
const replay = list(arg('replay'))?.map(Number);
const backend = process.env.DATABASE_URL ? 'postgres' : 'sqlite';

const vision = { threads: 1, maxQueue: 24, taskTimeoutMs: 60_000, warm: [], embedder: '' };
const h = process.argv.includes('--tiny-clip') ? await startTinyClipHarness(backend) : await startHarness(backend, { vision });
await h.app.ready();

const started = Date.now();
const seen = new Map<string, number>();
let done = 0;
const byGroupStatus = new Map<string, number>();
const slowest: { ms: number; line: string }[] = [];
const result = await runFuzz(h, {
  seed,
  cases,
  ...(only ? { only } : {}),
  ...(skip ? { skip } : {}),
  ...(replay ? { replay } : {}),
  // recognition past its 503 no_catalog, unless asked not to
  catalog: !process.argv.includes('--no-catalog'),
  onCase: (c, res, ms) => {
    slowest.push({ ms, line: `${Math.round(ms)} ms case ${c.index} [${c.mutations.join(' + ')}] ${c.op.group} → ${res.statusCode}` });
    slowest.sort((a, b) => b.ms - a.ms).splice(8);
    const key = `${res.statusCode} ${c.op.group}`;
    byGroupStatus.set(key, (byGroupStatus.get(key) ?? 0) + 1);
    if (++done % 250 === 0) console.error(`… ${done} cases, ${Math.round((Date.now() - started) / 1000)} s`);
  },
  onFailure: (f: FuzzFailure) => {
    // the same kind on the same operation and mutation is printed once in full, then counted
    const key = `${f.kind} ${f.case.op.group} ${f.case.mutations.map((m) => m.replace(/\d+/g, 'N')).join(' + ')}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    if (seen.get(key)! > 1 && !replay) return;
    console.log(`\nFAIL ${f.kind} (${f.note}) case ${f.case.index} [${f.case.mutations.join(' + ')}]`);
    console.log(`  request: ${describeRequest(f.case.request)}`);
    console.log(`  answer:  ${f.status} ${f.answer.slice(0, 400)}`);
    console.log(`  replay:  ${process.env.DATABASE_URL ? 'DATABASE_URL=… ' : ''}npx tsx scripts/fuzz-api.ts --seed ${seed} --replay ${f.case.index}${only ? ` --only ${only.join(',')}` : ''}${skip ? ` --skip ${skip.join(',')}` : ''}`);
  },
});
await h.close();

const kinds = new Map<string, number>();
for (const f of result.failures) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
console.log(`\n${backend}: seed ${seed}, ${result.cases} cases over ${result.byOperation.size} operations in ${Math.round((Date.now() - started) / 1000)} s; ${result.failures.length} failures`);
for (const [k, n] of kinds) console.log(`  ${k}: ${n}`);
console.log(`answers by status: ${[...result.byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ')}`);
console.log(`distinct (kind, operation, mutation): ${seen.size}`);
console.log('slowest cases:');
for (const s of slowest) console.log(`  ${s.line.slice(0, 300)}`);
// where the answers went: an operation answered 404 or 401 throughout was barely tested
if (process.argv.includes('--by-operation')) for (const [k, n] of [...byGroupStatus].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${n}\t${k}`);
process.exit(result.failures.length ? 1 : 0);
