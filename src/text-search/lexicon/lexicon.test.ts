import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { colorPalette } from '../../vision/models/color-palette.ts';
import { allCodes, cocoLabels, colorFamilies, colorNames, familyOf, itemKinds, peopleKinds, type LanguageWords } from './concepts.ts';
import { buildLexiconIndex, formKey, formsOf, homonyms, lexiconIndex, lexiconLanguages, lexiconWords, requiredLanguages } from './lexicon.ts';

const require = createRequire(import.meta.url);

describe('concepts', () => {
  it('are exactly the detector labels @vladmandic/human reports, in its order', () => {
    // The package exports no package.json; its folder is found from its main entry.
    const main = require.resolve('@vladmandic/human');
    const root = main.slice(0, main.lastIndexOf(join('node_modules', '@vladmandic', 'human')) + join('node_modules', '@vladmandic', 'human').length);
    const source = readFileSync(join(root, 'src/object/labels.ts'), 'utf8');
    const labels = [...source.matchAll(/label: '([^']+)'/g)].map((m) => m[1]);
    expect(labels).toHaveLength(80);
    expect([...cocoLabels]).toEqual(labels);
  });

  it('are exactly the colour palette names, in its order', () => {
    expect([...colorNames]).toEqual(colorPalette.map((c) => c.name));
  });

  it('give every family as a palette colour of its own family', () => {
    for (const f of colorFamilies) expect(familyOf[f]).toBe(f);
    expect(new Set(Object.values(familyOf))).toEqual(new Set(colorFamilies));
  });

  it('have codes of ASCII letters only, all distinct', () => {
    const codes = allCodes();
    for (const c of codes) expect(c).toMatch(/^x(?:[ocki]|p[oi]|face$)[a-z]*$/);
    expect(new Set(codes).size).toBe(codes.length);
    const things = cocoLabels.length + itemKinds.length;
    expect(codes).toHaveLength(things + colorNames.length + colorFamilies.length + peopleKinds.length + things * colorFamilies.length);
    // The face code is the one seen-tokens.ts writes.
    expect(codes).toContain('xface');
  });

  it('stay one distinct token each under the FTS5 porter and unicode61 tokenizers', () => {
    const db = new Database(':memory:');
    try {
      for (const tokenize of ['porter unicode61 remove_diacritics 2', 'unicode61 remove_diacritics 2']) {
        db.exec('DROP TABLE IF EXISTS t; DROP TABLE IF EXISTS v;');
        db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize='${tokenize}')`);
        db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')");
        const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
        for (const c of allCodes()) insert.run(c);
        const terms = db.prepare('SELECT term, doc FROM v').all() as { term: string; doc: number }[];
        // One term per code, none shared by two rows: porter merges no two codes.
        expect(terms).toHaveLength(allCodes().length);
        for (const t of terms) expect(t.doc).toBe(1);
      }
    } finally {
      db.close();
    }
  });
});

describe('lexicon', () => {
  it('covers the ten most spoken languages', () => {
    expect([...requiredLanguages]).toEqual(['en', 'zh', 'hi', 'es', 'fr', 'ar', 'bn', 'pt', 'ru', 'ur']);
    for (const lang of requiredLanguages) expect(lexiconLanguages).toContain(lang);
  });

  it.each(lexiconLanguages)('%s has a word for every label, colour and item kind', (lang) => {
    const words: LanguageWords = lexiconWords[lang];
    const missing: string[] = [];
    for (const name of cocoLabels) if (!words.objects[name]?.some((f) => formKey(f).key)) missing.push(`object ${name}`);
    for (const name of colorNames) if (!words.colors[name]?.some((f) => formKey(f).key)) missing.push(`colour ${name}`);
    for (const name of itemKinds) if (!words.items[name]?.some((f) => formKey(f).key)) missing.push(`item ${name}`);
    expect(missing).toEqual([]);
  });

  it.each(lexiconLanguages)('%s maps no form to two concepts unless it is a listed homonym', (lang) => {
    const byKey = new Map<string, Set<string>>();
    for (const { concept, form } of formsOf(lexiconWords[lang])) {
      const { key } = formKey(form);
      const set = byKey.get(key) ?? new Set<string>();
      set.add(`${concept.kind}:${concept.name}`);
      byKey.set(key, set);
    }
    const shared = [...byKey].filter(([, s]) => s.size > 1).map(([k]) => k).sort();
    const listed = (homonyms[lang] ?? []).map((f) => formKey(f).key).sort();
    expect(shared).toEqual(listed);
  });

  it('lists as homonyms only words that name both the orange colour and the orange fruit', () => {
    const index = lexiconIndex();
    for (const [lang, forms] of Object.entries(homonyms)) {
      for (const form of forms) {
        const { key, cjk } = formKey(form);
        const entries = (cjk ? index.cjk : index.phrases).get(key)!.filter((e) => e.lang === lang);
        expect(entries.map((e) => `${e.concept.kind}:${e.concept.name}`).sort()).toEqual(['color:orange', 'object:orange']);
      }
    }
  });

  it.each(lexiconLanguages)('%s repeats no form within one concept and has no empty form', (lang) => {
    const seen = new Set<string>();
    const repeated: string[] = [];
    for (const { concept, form } of formsOf(lexiconWords[lang])) {
      const { key } = formKey(form);
      expect(key, `${concept.name}: "${form}"`).not.toBe('');
      const id = `${concept.kind}:${concept.name}:${key}`;
      if (seen.has(id)) repeated.push(`${concept.name}: ${form}`);
      seen.add(id);
    }
    expect(repeated).toEqual([]);
  });

  // Catches a word pasted into the wrong language's file.
  const scripts: Record<string, RegExp> = {
    en: /^[a-z][a-z '-]*$/, es: /^[\p{Script=Latin} '-]+$/u, fr: /^[\p{Script=Latin} '-]+$/u,
    pt: /^[\p{Script=Latin} '-]+$/u, de: /^[\p{Script=Latin} '-]+$/u, it: /^[\p{Script=Latin} '-]+$/u, nl: /^[\p{Script=Latin} '-]+$/u, pl: /^[\p{Script=Latin} '-]+$/u, tr: /^[\p{Script=Latin} '-]+$/u, sv: /^[\p{Script=Latin} '-]+$/u, ru: /^[\p{Script=Cyrillic} -]+$/u, hi: /^[\p{Script=Devanagari} -]+$/u,
    bn: /^[\p{Script=Bengali}\u200d -]+$/u, ar: /^[\p{Script=Arabic}\p{M} ]+$/u, ur: /^[\p{Script=Arabic}\p{M} ]+$/u,
    zh: /^[\p{Script=Han}tT]+$/u, ja: /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ーtpc]+$/u,
  };
  it.each(lexiconLanguages)('%s forms are written in its own script', (lang) => {
    const wrong = [...formsOf(lexiconWords[lang])].map((f) => f.form).filter((f) => !scripts[lang]!.test(f));
    expect(wrong).toEqual([]);
  });

  it('indexes Chinese and Japanese forms as character strings and the others as word phrases', () => {
    const index = buildLexiconIndex();
    expect(index.cjk.get('连衣裙')?.[0]?.concept).toEqual({ kind: 'item', name: 'full body' });
    expect(index.phrases.get('hot dog')?.map((e) => e.lang)).toEqual(expect.arrayContaining(['en', 'fr']));
    // Accents, case and ё are folded on both sides.
    expect(index.phrases.get('avion')?.[0]?.concept).toEqual({ kind: 'object', name: 'airplane' });
    expect(index.phrases.get('самолет')?.[0]?.concept).toEqual({ kind: 'object', name: 'airplane' });
    expect(index.phrases.get('t shirt')?.[0]?.concept).toEqual({ kind: 'item', name: 'upper body' });
    expect(index.maxPhraseWords).toBeGreaterThanOrEqual(4);
  });

  it('reports how many forms each language has (at least two a concept on average)', () => {
    const concepts = cocoLabels.length + colorNames.length + itemKinds.length;
    for (const lang of lexiconLanguages) {
      const n = [...formsOf(lexiconWords[lang])].length;
      expect(n, lang).toBeGreaterThanOrEqual(concepts * 2);
    }
  });
});
