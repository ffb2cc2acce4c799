import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The layer rule of docs/architecture.md ("Layers"): routes → services → adapters. A route reaches a
// store, an index, a model or the media folder only through a service, and no service knows Fastify.
// Checked on the import lines, so a new shortcut is named here rather than found in a review (three
// routes imported lists from the stores until the seventy-first session's newcomer read).
const src = path.resolve(import.meta.dirname, '..');
const adapters = ['store', 'index', 'vision', 'media', 'catalog', 'queue', 'webhooks'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * Every module a source text imports, as TypeScript's own scanner finds them: `import … from`, type-only imports too (a
 * type from a store is still the store's), side-effect imports (`import '../media/x.ts'`), `export … from`, dynamic
 * `import('…')` and `require('…')`; none in a comment or a string. A line pattern missed the side-effect and dynamic
 * forms (seventy-second session). A dynamic import of a computed name cannot be checked here.
 */
function importsIn(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

const importsOf = (file: string) => importsIn(fs.readFileSync(file, 'utf8'));

const relative = (file: string) => path.relative(src, file);

describe('layers', () => {
  it('reads every form of import, and none in a comment or a string', () => {
    const text = [
      "import type { A } from '../store/a.ts';",
      "import '../media/side-effect.ts';",
      "export * from '../index/all.ts';",
      "export { b, type C } from '../vision/b.ts';",
      'import {',
      '  d,',
      "} from '../catalog/multi-line.ts';",
      "const m = async () => (await import('../store/dynamic.ts')).x;",
      "const r = require('../queue/required.ts');",
      "// import x from '../store/comment.ts';",
      "const s = \"import y from '../store/string.ts'\";",
    ].join('\n');
    expect(importsIn(text)).toEqual(['../store/a.ts', '../media/side-effect.ts', '../index/all.ts', '../vision/b.ts', '../catalog/multi-line.ts', '../store/dynamic.ts', '../queue/required.ts']);
  });

  it('routes and the HTTP layer\'s hooks import no adapter', () => {
    // all of src/http, not its routes/ alone: request-downloads.ts, a hook every route runs under, imported media/'s
    // ImageLoadError until the seventy-second session
    const http = sources(path.join(src, 'http'));
    expect(http.filter((f) => f.includes(`${path.sep}routes${path.sep}`)).length).toBeGreaterThan(5);
    const crossings = http.flatMap((file) =>
      importsOf(file)
        .filter((m) => m.startsWith('.'))
        .map((m) => path.relative(src, path.resolve(path.dirname(file), m)))
        .filter((target) => adapters.includes(target.split(path.sep)[0]!))
        .map((target) => `${relative(file)} imports ${target}`),
    );
    expect(crossings).toEqual([]);
  });

  it('services import no Fastify', () => {
    const services = sources(path.join(src, 'services'));
    expect(services.length).toBeGreaterThan(10);
    const crossings = services.flatMap((file) => importsOf(file).filter((m) => m === 'fastify' || m.startsWith('@fastify/')).map((m) => `${relative(file)} imports ${m}`));
    expect(crossings).toEqual([]);
  });
});
