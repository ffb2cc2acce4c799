/**
 * The console's first load as the server sends it: the page and every script and style sheet it
 * links, raw and compressed (the server sends brotli to browsers that take it, gzip otherwise).
 * `npm run console:size`; the budget is 300 KB compressed (issue 21).
 */
import { ConsoleBundle } from '../src/services/console-bundle.ts';

export async function firstLoad(loading = ConsoleBundle.load()) {
  const bundle = await loading;
  const index = bundle.index;
  if (!index) throw new Error('console/dist is not built: npm run console:build');
  const linked = [...index.raw.toString('utf8').matchAll(/(?:src|href)="\/console\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const files = [{ name: 'index.html', file: index }, ...linked.map((name) => ({ name, file: bundle.file(name)! }))];
  const sum = (pick: (f: (typeof files)[number]['file']) => Buffer) => files.reduce((n, f) => n + pick(f.file).length, 0);
  return { files: files.map((f) => ({ name: f.name, raw: f.file.raw.length, gzip: f.file.gzip.length, brotli: f.file.brotli.length })), raw: sum((f) => f.raw), gzip: sum((f) => f.gzip), brotli: sum((f) => f.brotli) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const size = await firstLoad();
  for (const f of size.files) console.log(`${f.name.padEnd(34)} ${String(f.raw).padStart(8)} B raw ${String(f.gzip).padStart(7)} B gzip ${String(f.brotli).padStart(7)} B brotli`);
  console.log(`${'first load'.padEnd(34)} ${String(size.raw).padStart(8)} B raw ${String(size.gzip).padStart(7)} B gzip ${String(size.brotli).padStart(7)} B brotli (budget 300 KB compressed)`);
  if (size.gzip > 300 * 1024) process.exit(1);
}
