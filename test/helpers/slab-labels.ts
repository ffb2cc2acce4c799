import sharp from 'sharp';
import { seededRandom } from '../../src/util/seeded-random.ts';

/**
 * Graded slabs drawn from SVG, for the companies the real photos of ../shared/datasets/graded_slabs
 * lack (they hold PSA and one BGS). What each label prints follows ../shared/catalogs/slabs
 * (README.md, grading_scales.json): the grade words per company, PSA's #number / words / number /
 * certificate block, Beckett's subgrades and 10-digit serial, CGC's 10-digit certificate. Where
 * the facts say "not confirmed" (the layouts and certificate formats of SGC, TAG, ACE and HGA),
 * the drawing is our guess at a plausible label: a name line, the grade number beside its words,
 * digits for the certificate. These are test material, not a claim about the companies' labels.
 */

export interface SlabTruth {
  /** The company the label is of (`OTHER` for one outside the seven). */
  company: string;
  /** What the label prints as the company (the logo's letters), or null for a PSA label drawn without its logo. */
  logo: string | null;
  grade: number | null;
  verbal: string;
  qualifier: string | null;
  cert: string;
  name: string;
  number: string | null;
  year: string;
  set: string;
  /** PSA's third line (`1ST EDITION`, `PROMO`), or empty. */
  variety: string;
}

/** Grade words as each company prints them, with the grade (the facts; half grades with "+"). */
export const PRINTED_SCALES: Record<string, [string, number | null][]> = {
  PSA: [['GEM MT', 10], ['MINT', 9], ['NM-MT', 8], ['NM', 7], ['EX-MT', 6], ['EX', 5], ['VG-EX', 4], ['VG', 3], ['GOOD', 2], ['FR', 1.5], ['PR', 1], ['NM-MT+', 8.5], ['NM+', 7.5], ['EX-MT+', 6.5], ['AUTHENTIC', null]],
  BGS: [['PRISTINE', 10], ['GEM MINT', 9.5], ['MINT', 9], ['NM-MT+', 8.5], ['NM-MT', 8], ['NEAR MINT+', 7.5], ['NEAR MINT', 7], ['EX-MT+', 6.5], ['EX-MT', 6], ['EXCELLENT+', 5.5], ['EXCELLENT', 5], ['VG-EX', 4], ['GOOD', 2], ['POOR', 1]],
  CGC: [['PRISTINE', 10], ['GEM MINT', 10], ['MINT+', 9.5], ['MINT', 9], ['NM/MINT+', 8.5], ['NM/MINT', 8], ['NEAR MINT+', 7.5], ['NEAR MINT', 7], ['EX/NM+', 6.5], ['EX/NM', 6], ['EXCELLENT', 5], ['VG/EX', 4], ['VERY GOOD', 3], ['GOOD', 2], ['FAIR', 1.5], ['POOR', 1]],
  SGC: [['PRISTINE', 10], ['GEM MINT', 10], ['MINT+', 9.5], ['MINT', 9], ['NM/MT+', 8.5], ['NM/MT', 8], ['NM+', 7.5], ['NM', 7], ['EX/NM', 6], ['EX', 5], ['VG/EX', 4], ['VG', 3], ['GOOD', 2], ['FAIR', 1.5], ['POOR', 1]],
  TAG: [['PRISTINE', 10], ['GEM MINT', 10], ['MINT', 9], ['NM-MT', 8], ['NM', 7], ['EX-MT', 6], ['EX', 5]],
  ACE: [['GEM MINT', 10], ['MINT', 9], ['NM-MT', 8], ['NM', 7], ['EX-MT', 6], ['EX', 5], ['VG-EX', 4], ['VG', 3], ['GOOD', 2], ['POOR', 1]],
  HGA: [['FLAWLESS', 10], ['PRISTINE MINT', 10], ['GEM MINT', 9.5], ['MINT', 9], ['NM/MINT+', 8.5], ['NM/MINT', 8], ['NEAR MINT+', 7.5], ['NEAR MINT', 7]],
  OTHER: [['GEM MINT', 10], ['MINT', 9], ['NM-MT', 8]],
};

/** Cards the labels name: year, brand and set as a label's first line, the subject, the number. */
const CARDS: { year: string; set: string; name: string; number: string | null }[] = [
  { year: '1999', set: 'POKEMON GAME', name: 'CHARIZARD - HOLO', number: '4' },
  { year: '2023', set: 'POKEMON SV 151', name: 'CHARIZARD EX', number: '199' },
  { year: '2016', set: 'POKEMON EVOLUTIONS', name: 'PIKACHU', number: '35' },
  { year: '2000', set: 'POKEMON ROCKET', name: 'DARK BLASTOISE - HOLO', number: '3' },
  { year: '2020', set: 'POKEMON DARKNESS ABLAZE', name: 'CHARIZARD VMAX', number: '020' },
  { year: '1986', set: 'FLEER', name: 'MICHAEL JORDAN', number: '57' },
  { year: '2018', set: 'PANINI PRIZM', name: 'LUKA DONCIC', number: '280' },
  { year: '2011', set: 'TOPPS UPDATE', name: 'MIKE TROUT', number: 'US175' },
  { year: '2003', set: 'UPPER DECK', name: 'LEBRON JAMES', number: '221' },
  { year: '2002', set: 'YU-GI-OH! LOB', name: 'BLUE-EYES WHITE DRAGON', number: 'LOB-001' },
  { year: '1993', set: 'MAGIC ALPHA', name: 'SERRA ANGEL', number: null },
  { year: '2021', set: 'POKEMON CELEBRATIONS', name: 'UMBREON VMAX', number: '095' },
];

const OTHER_LOGOS = ['GMA', 'KSA', 'CSG', 'PGS'];

/** `n` labels per company (the seven and OTHER), the same for a seed. */
export function slabTruths(perCompany: number, seed = 19): SlabTruth[] {
  const rand = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 10)).join('');
  const out: SlabTruth[] = [];
  for (const company of Object.keys(PRINTED_SCALES)) {
    for (let i = 0; i < perCompany; i++) {
      const card = pick(CARDS);
      const [verbal, grade] = PRINTED_SCALES[company]![i % PRINTED_SCALES[company]!.length]!;
      // PSA: 8 digits (7 on older slabs); Beckett 10 with leading zeros; CGC 10; the others unconfirmed
      const cert = company === 'PSA' ? `${1 + Math.floor(rand() * 9)}${digits(rand() < 0.15 ? 6 : 7)}` : company === 'BGS' ? `00${1 + Math.floor(rand() * 9)}${digits(7)}` : company === 'CGC' ? `${1 + Math.floor(rand() * 9)}${digits(9)}` : `${1 + Math.floor(rand() * 9)}${digits(6 + Math.floor(rand() * 3))}`;
      const qualifier = company === 'PSA' && grade !== null && grade < 10 && grade > 1 && rand() < 0.2 ? pick(['OC', 'ST', 'PD', 'MK']) : null;
      out.push({ company, logo: company === 'OTHER' ? pick(OTHER_LOGOS) : company === 'PSA' && rand() < 0.2 ? null : company, grade, verbal, qualifier, cert, name: card.name, number: card.number, year: card.year, set: card.set, variety: pick(['', '1ST EDITION', 'PROMO', 'SHADOWLESS', 'REVERSE FOIL']) });
    }
  }
  return out;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const FONT = 'font-family="DejaVu Sans, Liberation Sans, sans-serif"';
const text = (x: number, y: number, size: number, s: string, opts: { fill?: string; anchor?: 'start' | 'middle' | 'end'; bold?: boolean } = {}) =>
  `<text x="${x}" y="${y}" ${FONT} font-size="${size}"${opts.bold ? ' font-weight="bold"' : ''} fill="${opts.fill ?? '#111'}" text-anchor="${opts.anchor ?? 'start'}">${esc(s)}</text>`;
const gradeText = (g: number | null) => (g === null ? '' : String(g));

/** The label's SVG in a box `w` × `h` at the origin. */
function labelSvg(t: SlabTruth, w: number, h: number): string {
  const num = t.number ? `#${t.number}` : '';
  const g = gradeText(t.grade);
  switch (t.company) {
    case 'PSA': {
      // red frame; left block: year + set, subject, variety; right block: #number, words, grade, cert; the logo between
      const words = t.qualifier ? `${t.verbal} ${t.qualifier}` : t.verbal;
      return `<rect width="${w}" height="${h}" fill="#c8102e"/><rect x="8" y="8" width="${w - 16}" height="${h - 16}" fill="#fff"/>
        ${text(20, 40, 20, `${t.year} ${t.set}`)}${text(20, 66, 20, t.name)}${text(20, 92, 20, t.variety)}
        ${text(w - 20, 40, 20, num, { anchor: 'end' })}${text(w - 20, 66, 20, words, { anchor: 'end' })}${text(w - 20, 92, 20, g, { anchor: 'end' })}${text(w - 20, 118, 20, t.cert, { anchor: 'end' })}
        ${t.logo ? `<rect x="${w / 2 - 40}" y="${h - 58}" width="80" height="34" fill="#1d3f91"/>${text(w / 2, h - 33, 24, t.logo, { fill: '#fff', anchor: 'middle', bold: true })}` : `<rect x="${w / 2 - 40}" y="${h - 58}" width="80" height="34" fill="#1d3f91"/>`}
        <rect x="20" y="${h - 50}" width="160" height="22" fill="#222"/>`;
    }
    case 'BGS': {
      const bg = t.verbal === 'PRISTINE' ? '#c9a646' : '#c0c4c8';
      const sub = t.grade === null ? 5 : t.grade;
      const subs = ['CENTERING', 'CORNERS', 'EDGES', 'SURFACE'].map((s, i) => `${text(w * 0.52, 34 + i * 24, 16, s)}${text(w * 0.74, 34 + i * 24, 16, String(i === 1 && sub < 10 ? sub + 0.5 : sub))}`).join('');
      return `<rect width="${w}" height="${h}" fill="${bg}"/>${text(16, 34, 18, `${t.year} ${t.set}`)}${text(16, 60, 18, `${num} ${t.name}`.trim())}
        ${subs}${text(w - 18, 62, 40, g, { anchor: 'end', bold: true })}${text(w - 18, 94, 18, t.verbal, { anchor: 'end' })}
        ${text(16, h - 22, 18, t.cert)}${text(w / 2, h - 22, 20, 'BECKETT', { anchor: 'middle', bold: true })}`;
    }
    case 'CGC':
      return `<rect width="${w}" height="${h}" fill="${t.verbal === 'PRISTINE' ? '#d8b84a' : '#f6f6f2'}"/><rect x="0" y="0" width="110" height="${h}" fill="#0b3d91"/>
        ${text(55, h / 2 + 12, 34, 'CGC', { fill: '#fff', anchor: 'middle', bold: true })}
        ${text(126, 34, 18, `${t.set.replace(/^POKEMON /, 'POKEMON ')} (${t.year})`)}${text(126, 60, 18, t.name)}${text(126, 86, 18, num)}${text(126, 112, 16, 'ENGLISH')}
        ${text(w - 18, 60, 44, g, { anchor: 'end', bold: true })}${text(w - 18, 94, 18, t.verbal, { anchor: 'end' })}${text(w - 18, h - 20, 16, t.cert, { anchor: 'end' })}`;
    case 'SGC':
      return `<rect width="${w}" height="${h}" fill="#111"/>${text(18, 44, 30, 'SGC', { fill: '#fff', bold: true })}
        ${text(18, 80, 18, `${t.year} ${t.set} ${num} ${t.name}`.replace(/\s+/g, ' '), { fill: '#fff' })}
        ${text(w - 18, 50, 40, g, { fill: '#fff', anchor: 'end', bold: true })}${text(w - 18, 116, 18, t.verbal, { fill: '#fff', anchor: 'end' })}${text(18, h - 22, 16, t.cert, { fill: '#fff' })}`;
    case 'TAG':
      return `<rect width="${w}" height="${h}" fill="#f4f4f4"/><rect x="0" y="0" width="${w}" height="40" fill="#111"/>${text(18, 30, 24, 'TAG', { fill: '#fff', bold: true })}
        ${text(18, 70, 18, `${t.year} ${t.set}`)}${text(18, 96, 18, `${num} ${t.name}`.trim())}
        ${text(w - 18, 82, 20, `${t.verbal} ${g}`.trim(), { anchor: 'end', bold: true })}${text(w - 18, 110, 18, String(Math.min(1000, Math.round((t.grade ?? 5) * 95 + 20))), { anchor: 'end' })}${text(18, h - 20, 16, t.cert)}
        <rect x="${w - 70}" y="${h - 64}" width="52" height="52" fill="#222"/>`;
    case 'ACE':
      return `<rect width="${w}" height="${h}" fill="#fdfdfd"/><rect x="0" y="0" width="8" height="${h}" fill="#6a1b9a"/>${text(22, 40, 28, 'ACE', { fill: '#6a1b9a', bold: true })}
        ${text(22, 72, 18, `${t.year} ${t.set}`)}${text(22, 98, 18, t.name)}${text(22, 124, 16, num)}
        ${text(w - 18, 52, 40, g, { anchor: 'end', bold: true })}${text(w - 18, 84, 18, t.verbal, { anchor: 'end' })}${text(w - 18, h - 20, 16, t.cert, { anchor: 'end' })}`;
    case 'HGA':
      return `<rect width="${w}" height="${h}" fill="#e9f3ff"/>${text(18, 38, 26, 'HGA', { fill: '#d0006f', bold: true })}
        ${text(18, 70, 18, `${t.year} ${t.set}`)}${text(18, 96, 18, t.name)}${text(18, 122, 16, num)}
        ${text(w - 18, 52, 36, t.grade === null ? '' : t.grade === 10 || t.grade === 9 || t.grade === 8 || t.grade === 7 ? t.grade.toFixed(1) : g, { anchor: 'end', bold: true })}${text(w - 18, 84, 18, t.verbal, { anchor: 'end' })}${text(w - 18, h - 20, 16, t.cert, { anchor: 'end' })}`;
    default:
      return `<rect width="${w}" height="${h}" fill="#fafafa"/>${text(18, 40, 26, t.logo ?? '', { bold: true })}
        ${text(18, 72, 18, `${t.year} ${t.set}`)}${text(18, 98, 18, `${num} ${t.name}`.trim())}
        ${text(w - 18, 52, 36, g, { anchor: 'end', bold: true })}${text(w - 18, 84, 18, t.verbal, { anchor: 'end' })}${text(w - 18, h - 20, 16, t.cert, { anchor: 'end' })}`;
  }
}

export interface SlabPhotoOptions {
  /** Degrees the slab is turned in the photo. */
  rotation?: number;
  /** JPEG quality of the photo. */
  quality?: number;
  blur?: number;
  /** Long side of the photo in pixels. */
  size?: number;
}

/**
 * A photo of a slab: a clear holder on a dark table, the label at its top, the card below it.
 * JPEG bytes.
 */
export async function renderSlab(t: SlabTruth, o: SlabPhotoOptions = {}): Promise<Buffer> {
  // a PSA-sized holder (about 3.3 × 5.4 in): the label's top about a third of the card's height above the card
  const W = 620;
  const lw = 560;
  const lh = 150;
  const cw = 500;
  const ch = Math.round((cw * 88) / 63);
  const H = 30 + lh + 36 + ch + 40;
  const seed = [...t.cert].reduce((a, c) => a * 31 + c.charCodeAt(0), 7) >>> 0;
  const hue = seed % 360;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    <rect width="${W}" height="${H}" rx="26" fill="#d7dbe0"/><rect x="10" y="10" width="${W - 20}" height="${H - 20}" rx="20" fill="#eef1f4"/>
    <g transform="translate(${(W - lw) / 2}, 30)">${labelSvg(t, lw, lh)}</g>
    <rect x="${(W - cw) / 2 - 12}" y="${H - ch - 52}" width="${cw + 24}" height="${ch + 24}" fill="#1a1a1a"/>
    <g transform="translate(${(W - cw) / 2}, ${H - ch - 40})">
      <rect width="${cw}" height="${ch}" rx="18" fill="hsl(${hue},60%,55%)"/>
      <rect x="24" y="60" width="${cw - 48}" height="${ch * 0.45}" fill="hsl(${(hue + 140) % 360},50%,40%)"/>
      <circle cx="${cw / 2}" cy="${60 + ch * 0.22}" r="${cw * 0.18}" fill="hsl(${(hue + 60) % 360},70%,65%)"/>
      <rect x="24" y="${ch * 0.62}" width="${cw - 48}" height="${ch * 0.3}" fill="#f3eee0"/>
    </g></svg>`;
  const slab = await sharp(Buffer.from(svg)).png().toBuffer();
  const rotation = o.rotation ?? 0;
  const turned = await sharp(slab).rotate(rotation, { background: '#3b3f45' }).png().toBuffer();
  const meta = await sharp(turned).metadata();
  // the table around the slab
  const pad = 70;
  let img = sharp(turned).extend({ top: pad, bottom: pad, left: pad, right: pad, background: '#3b3f45' });
  const size = o.size ?? 900;
  const long = Math.max(meta.width! + 2 * pad, meta.height! + 2 * pad);
  img = sharp(await img.png().toBuffer()).resize({ width: Math.round(((meta.width! + 2 * pad) * size) / long) });
  if (o.blur) img = img.blur(o.blur);
  return img.jpeg({ quality: o.quality ?? 85 }).toBuffer();
}
