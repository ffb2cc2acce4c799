/**
 * What the text-search lexicon reads in every card and comic name of ../shared/catalogs: a name stored
 * in a record's fields gets these concept codes beside its words (record-text.ts), so a lexicon
 * change that makes "Kor Skyfisher" a cow shows up here before it ships (h201, forty-sixth session).
 *
 *   node --import tsx scripts/lexicon-card-names.ts                       # the readings, one per line
 *   node --import tsx scripts/lexicon-card-names.ts --write FILE          # keep them as a baseline
 *   node --import tsx scripts/lexicon-card-names.ts --compare FILE        # what a change added (+) or took away (-)
 *
 * A line is `game<TAB>name<TAB>codes` (codes sorted, space-separated). Names read alike across games count once a game.
 */
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { gunzipSync } from 'node:zlib';
import { conceptCodesIn } from '../src/text-search/query.ts';

const shared = path.resolve(import.meta.dirname, '../../shared/catalogs');
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

function json(file: string): unknown {
  const bytes = readFileSync(file);
  return JSON.parse((file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
}

function namesOf(list: unknown, ...keys: string[]): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((row: Record<string, unknown>) =>
    keys
      .map((k) => row[k])
      .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
      // Yu-Gi-Oh!'s `name_ja` carries furigana as <ruby>…<rt>reading</rt></ruby>: the name is the base text
      .map((v) => v.replace(/<rt>.*?<\/rt>/gs, '').replace(/<\/?(?:ruby|rb|rp)>/g, '')),
  );
}

async function csvColumn(file: string, column: string): Promise<string[]> {
  const out: string[] = [];
  let at = -1;
  for await (const line of createInterface({ input: createReadStream(file) })) {
    // The sports checklist quotes no field with a comma in its player column's rows we read; a quoted one is skipped.
    const cells = line.split(',');
    if (at < 0) at = cells.indexOf(column);
    else {
      const cell = cells[at];
      if (cell && !cell.startsWith('"')) out.push(...cell.split('/').map((s) => s.trim()).filter(Boolean));
    }
  }
  return out;
}

const sources: Array<[game: string, load: () => Promise<string[]> | string[], file: string]> = [
  ['pokemon', () => namesOf(json(path.join(shared, 'pokemon/cards.json')), 'name'), 'pokemon/cards.json'],
  ['mtg', () => namesOf(json(path.join(shared, 'mtg/mtgjson_printings.json.gz')), 'name'), 'mtg/mtgjson_printings.json.gz'],
  ['yugioh', () => namesOf(json(path.join(shared, 'yugioh/cards.json')), 'name', 'name_ja'), 'yugioh/cards.json'],
  ['sports', () => csvColumn(path.join(shared, 'sports/topps_2022_baseball_checklist.csv'), 'players'), 'sports/topps_2022_baseball_checklist.csv'],
  ['comics', () => namesOf(json(path.join(shared, 'comics/marvel_comics.json')), 'title'), 'comics/marvel_comics.json'],
];

const lines: string[] = [];
let names = 0;
for (const [game, load, file] of sources) {
  if (!existsSync(path.join(shared, file))) {
    process.stderr.write(`lexicon-card-names: ${file} not found under ${shared}; ${game} skipped\n`);
    continue;
  }
  const distinct = [...new Set(await load())];
  names += distinct.length;
  for (const name of distinct) {
    const codes = conceptCodesIn(name);
    if (codes.length) lines.push(`${game}\t${name.replace(/\s+/g, ' ')}\t${[...new Set(codes)].sort().join(' ')}`);
  }
}
lines.sort();
const summary = `${lines.length} of ${names} names read as concepts`;

const write = flag('--write');
const compare = flag('--compare');
if (write) {
  writeFileSync(write, lines.join('\n') + '\n');
  process.stderr.write(`${summary}; written to ${write}\n`);
} else if (compare) {
  const before = new Set(readFileSync(compare, 'utf8').split('\n').filter(Boolean));
  const now = new Set(lines);
  const added = lines.filter((l) => !before.has(l));
  const gone = [...before].filter((l) => !now.has(l)).sort();
  for (const l of gone) process.stdout.write(`- ${l}\n`);
  for (const l of added) process.stdout.write(`+ ${l}\n`);
  process.stderr.write(`${summary}; ${added.length} added, ${gone.length} gone against ${compare}\n`);
} else {
  for (const l of lines) process.stdout.write(l + '\n');
  process.stderr.write(`${summary}\n`);
}
