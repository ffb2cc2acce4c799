/**
 * Checks every relative markdown link in README.md and docs/**\/*.md: its file exists and, with a #anchor into a
 * markdown file, that file has a heading of that slug (GitHub's rule: lower case, punctuation but `-` and `_` dropped,
 * spaces as `-`, a repeated heading's slug with -1, -2, …) or an `<a name>`/`<a id>` of it. Links inside code are not
 * links. Written when the README's long sections moved into docs/ (h332).
 *
 *   npx tsx scripts/check-doc-links.ts      # exit 1 and one line a broken link
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const docs = fs.readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
const files = ['README.md', ...docs.sort()];

const withoutFences = (text: string) => text.replace(/```[\s\S]*?```/g, (block) => '\n'.repeat(block.split('\n').length - 1));

function anchorsOf(file: string): Set<string> {
  const text = withoutFences(fs.readFileSync(path.join(root, file), 'utf8'));
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of text.matchAll(/^#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const heading = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) found.add(m[1]!);
  return found;
}

const anchors = new Map<string, Set<string>>();
const broken: string[] = [];
let links = 0;
for (const file of files) {
  const lines = withoutFences(fs.readFileSync(path.join(root, file), 'utf8')).split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target) || target.startsWith('<')) continue;
      links++;
      const [where = '', anchor] = target.split('#', 2);
      const resolved = where ? path.normalize(path.join(path.dirname(file), decodeURIComponent(where))) : file;
      if (!fs.existsSync(path.join(root, resolved))) {
        broken.push(`${file}:${i + 1}: ${target}: no file ${resolved}`);
        continue;
      }
      if (anchor && resolved.endsWith('.md')) {
        if (!anchors.has(resolved)) anchors.set(resolved, anchorsOf(resolved));
        if (!anchors.get(resolved)!.has(decodeURIComponent(anchor).toLowerCase())) broken.push(`${file}:${i + 1}: ${target}: no heading #${anchor} in ${resolved}`);
      }
    }
  });
}
console.log(`${links} relative links in ${files.length} files; ${broken.length} broken`);
for (const line of broken) console.log(line);
process.exitCode = broken.length ? 1 : 0;
