/** `npm run bench -- <name>`: runs bench/<name>.ts. */
import fs from 'node:fs';
import path from 'node:path';

const name = process.argv[2];
// helpers (`lib-*`, `_*`) and type declarations (`*.d.ts`) are not benches
const available = fs.readdirSync(import.meta.dirname).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== 'run.ts' && !f.startsWith('lib-') && !f.startsWith('_')).map((f) => f.slice(0, -3));
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <${available.join('|')}>`);
  process.exit(2);
}
await import(path.join(import.meta.dirname, `${name}.ts`));
