import sharp from 'sharp';
import { loadCv, type Quad } from '../../src/vision/cards/card-geometry.ts';
import type { RgbPixels } from '../../src/vision/engine/tfjs-runtime.ts';
import { seededRandom } from '../../src/util/seeded-random.ts';

/** A made card: upright RGBA with rounded corners, a printed border of known margins around the art. */
export interface CardSpec {
  width: number;
  height: number;
  /** Border widths in card pixels: left, top, right, bottom. */
  margins: [number, number, number, number];
  border: [number, number, number];
  /** Made wear, on the upper-left corner and the upper edge (card pixels). */
  damage?: {
    /** Radius of white worn stock at the corner tip. */
    whitenedCorner?: number;
    /** Number of white nicks along the upper edge, each `nickSize` across. */
    nicks?: number;
    nickSize?: number;
    /** Side of a triangle cut off the corner (the background shows). */
    chippedCorner?: number;
    /** Bites cut out of the upper edge (the background shows), each `edgeChipSize` across and half as deep. */
    edgeChips?: number;
    edgeChipSize?: number;
    /** Lengths (card pixels) of thin light scratches across the art. */
    scratches?: number[];
    /**
     * Creases as [x0, y0, x1, y1] in card fractions: a fold line under raking light, a thin
     * highlight beside a thin shadow, from (x0, y0) to (x1, y1).
     */
    creases?: [number, number, number, number][];
    /** Stains as [x, y, radius] (fractions of the width for x, y and radius, y of the height): soft brown blots. */
    stains?: [number, number, number][];
  };
  /**
   * A real card's scan to print instead of the made design (margins and border are then only
   * nominal); it is stretched to width × height and given the rounded corners.
   */
  face?: Buffer;
}

export async function makeCard(spec: CardSpec, seed = 1): Promise<Buffer> {
  const { width: w, height: h, margins: [l, t, r, b], border } = spec;
  const rand = seededRandom(seed);
  const hue = Math.floor(rand() * 360);
  const radius = Math.round(w * 0.05);
  const art = `<rect x="${l}" y="${t}" width="${w - l - r}" height="${h - t - b}" fill="hsl(${hue},55%,45%)"/>
    <circle cx="${w / 2}" cy="${t + (h - t - b) * 0.4}" r="${w * 0.2}" fill="hsl(${(hue + 150) % 360},70%,60%)"/>
    <rect x="${l + 10}" y="${h - b - (h - t - b) * 0.3}" width="${w - l - r - 20}" height="${(h - t - b) * 0.25}" fill="#f4efe0"/>
    <text x="${l + 20}" y="${h - b - (h - t - b) * 0.15}" font-size="${w * 0.05}" fill="#222">Loupe test card ${seed}</text>`;
  const dmg = spec.damage ?? {};
  let wear = '';
  if (dmg.whitenedCorner) wear += `<circle cx="${radius * 0.3}" cy="${radius * 0.3}" r="${dmg.whitenedCorner}" fill="#f4f2ec"/>`;
  for (let i = 0; i < (dmg.nicks ?? 0); i++) wear += `<circle cx="${w * 0.15 + ((w * 0.7) / Math.max(1, dmg.nicks! - 1)) * i}" cy="0" r="${(dmg.nickSize ?? 6) / 2}" fill="#f4f2ec"/>`;
  // Scratches run across the upper art, clear of the text box and of each other.
  (dmg.scratches ?? []).forEach((len, i) => {
    const x = w * 0.12 + i * w * 0.05;
    const y = h * 0.12 + i * h * 0.1;
    wear += `<line x1="${x}" y1="${y}" x2="${x + len * 0.96}" y2="${y + len * 0.28}" stroke="#eceae4" stroke-width="1.6" stroke-opacity="0.9"/>`;
  });
  (dmg.creases ?? []).forEach(([ax, ay, bx, by]) => {
    const [x0, y0, x1, y1] = [ax * w, ay * h, bx * w, by * h];
    const len = Math.hypot(x1 - x0, y1 - y0);
    const [nx, ny] = [(-(y1 - y0) / len) * 1.6, ((x1 - x0) / len) * 1.6];
    wear += `<line x1="${x0 + nx}" y1="${y0 + ny}" x2="${x1 + nx}" y2="${y1 + ny}" stroke="#fff" stroke-width="2" stroke-opacity="0.6"/>`;
    wear += `<line x1="${x0 - nx}" y1="${y0 - ny}" x2="${x1 - nx}" y2="${y1 - ny}" stroke="#000" stroke-width="2.2" stroke-opacity="0.45"/>`;
  });
  const stainDefs = (dmg.stains ?? []).length ? `<defs><filter id="soft"><feGaussianBlur stdDeviation="${w * 0.006}"/></filter></defs>` : '';
  (dmg.stains ?? []).forEach(([x, y, r]) => {
    wear += `<circle cx="${x * w}" cy="${y * h}" r="${r * w}" fill="rgb(125,85,35)" fill-opacity="0.45" filter="url(#soft)"/>`;
  });
  // The card's shape: rounded corners, less a triangle cut off the upper-left corner when chipped.
  let chip = dmg.chippedCorner ? `<polygon points="0,0 ${radius + dmg.chippedCorner},0 0,${radius + dmg.chippedCorner}" fill="#000"/>` : '';
  for (let i = 0; i < (dmg.edgeChips ?? 0); i++) {
    const size = dmg.edgeChipSize ?? 8;
    const x = w * 0.2 + ((w * 0.6) / Math.max(1, dmg.edgeChips! - 1)) * i;
    chip += `<polygon points="${x - size / 2},0 ${x + size / 2},0 ${x + size / 6},${size / 2} ${x - size / 6},${size / 2}" fill="#000"/>`;
  }
  const cardMask = `<mask id="c"><rect width="${w}" height="${h}" rx="${radius}" ry="${radius}" fill="#fff"/>${chip}</mask>`;
  if (spec.face) {
    // Damage drawn over a real scan too: the scan, then the same overlay.
    const face = await sharp(spec.face).resize(w, h, { fit: 'fill' }).removeAlpha().png().toBuffer();
    const overlay = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${stainDefs}${wear}</svg>`;
    // dest-in keeps what the mask's alpha covers: the rounded card less any chip.
    const mask = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${cardMask}<rect width="${w}" height="${h}" fill="#fff" mask="url(#c)"/></svg>`;
    const damaged = wear ? await sharp(face).composite([{ input: Buffer.from(overlay) }]).png().toBuffer() : face;
    return sharp(await sharp(damaged).ensureAlpha().png().toBuffer())
      .composite([{ input: Buffer.from(mask), blend: 'dest-in' }])
      .raw()
      .toBuffer();
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    ${cardMask}${stainDefs}<g mask="url(#c)"><rect width="${w}" height="${h}" fill="rgb(${border.join(',')})"/>${art}${wear}</g></svg>`;
  return sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer();
}

export interface Scene {
  image: RgbPixels;
  /** The card's corners in the scene (the sharp corners its sides meet at), UL, UR, DR, DL. */
  quad: Quad;
  card: CardSpec;
}

export interface SceneOptions {
  width?: number;
  height?: number;
  /** Fraction of the scene's short side the card's height spans. */
  size?: number;
  rotationDeg?: number;
  /** Corner jitter as a fraction of the card width (perspective). */
  perspective?: number;
  blur?: number;
  noise?: number;
  /** Brightness gradient strength across the scene, 0–1. */
  light?: number;
  background?: Buffer;
  /**
   * The card inside a clear holder, drawn over it with the same perspective: a penny sleeve
   * (66 × 93 mm, open top, thin hazy film) or a top-loader (3 × 4 in rigid PVC, thick clear rim,
   * a thumb notch at the open top), the card resting near the holder's bottom.
   */
  holder?: 'sleeve' | 'toploader';
}

/**
 * The holder as an RGBA overlay in card pixels, and where its top-left lies in the card's
 * frame. Sizes in millimetres scaled to the card (63 mm wide).
 */
async function holderOverlay(kind: 'sleeve' | 'toploader', card: CardSpec, seed: number): Promise<{ rgba: Buffer; x: number; y: number; width: number; height: number }> {
  const rand = seededRandom(seed * 31 + 7);
  const mm = card.width / 63;
  const [wMm, hMm, rMm] = kind === 'sleeve' ? [66, 93, 0.6] : [76.2, 101.6, 2.5];
  const bottomGap = (kind === 'sleeve' ? 0.6 + rand() * 1.2 : 1 + rand() * 2.5) * mm;
  const width = Math.round(wMm * mm);
  const height = Math.round(hMm * mm);
  const x = -Math.round((width - card.width) / 2 + (rand() - 0.5) * (kind === 'sleeve' ? 0.8 : 3) * mm);
  const y = card.height + Math.round(bottomGap) - height;
  const r = rMm * mm;
  const haze = kind === 'sleeve' ? 0.03 + rand() * 0.05 : 0.04 + rand() * 0.06;
  const rim = 2 * mm;
  let shapes = `<rect width="${width}" height="${height}" rx="${r}" fill="#fff" fill-opacity="${haze}"/>`;
  if (kind === 'toploader') {
    // The thick rim refracts: brighter than the sheet, with a light outer and a dark inner line.
    shapes += `<path fill-rule="evenodd" fill="#fff" fill-opacity="0.1" d="M0,${r} a${r},${r} 0 0 1 ${r},-${r} h${width - 2 * r} a${r},${r} 0 0 1 ${r},${r} v${height - 2 * r} a${r},${r} 0 0 1 -${r},${r} h-${width - 2 * r} a${r},${r} 0 0 1 -${r},-${r} z M${rim},${rim} v${height - 2 * rim} h${width - 2 * rim} v-${height - 2 * rim} z"/>`;
    shapes += `<rect x="${rim}" y="${rim}" width="${width - 2 * rim}" height="${height - 2 * rim}" fill="none" stroke="#000" stroke-opacity="0.18" stroke-width="${0.15 * mm}"/>`;
    // The thumb notch in the front sheet at the open top.
    shapes += `<ellipse cx="${width / 2}" cy="0" rx="${7 * mm}" ry="${3.5 * mm}" fill="none" stroke="#fff" stroke-opacity="0.35" stroke-width="${0.15 * mm}"/>`;
  }
  shapes += `<rect x="0.5" y="0.5" width="${width - 1}" height="${height - 1}" rx="${r}" fill="none" stroke="#fff" stroke-opacity="${kind === 'sleeve' ? 0.3 : 0.5}" stroke-width="${0.2 * mm}"/>`;
  // Glare in half the photos: a soft light band across the holder.
  if (rand() < 0.5) {
    const gx = rand() * width;
    const gw = (4 + rand() * 8) * mm;
    shapes += `<defs><filter id="g"><feGaussianBlur stdDeviation="${2 * mm}"/></filter></defs><polygon filter="url(#g)" fill="#fff" fill-opacity="${0.15 + rand() * 0.25}" points="${gx},0 ${gx + gw},0 ${gx + gw - height * 0.4},${height} ${gx - height * 0.4},${height}"/>`;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shapes}</svg>`;
  const rgba = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer();
  return { rgba, x, y, width, height };
}

/** A photo-like scene: the card warped onto a background with perspective, light, blur and noise. */
export async function makeScene(card: CardSpec, seed: number, o: SceneOptions = {}): Promise<Scene> {
  const { cv } = await loadCv();
  const rand = seededRandom(seed);
  const W = o.width ?? 1600;
  const H = o.height ?? 1200;
  const cardRgba = await makeCard(card, seed);
  const bg = o.background
    ? await sharp(o.background).resize(W, H, { fit: 'cover' }).removeAlpha().raw().toBuffer()
    : await sharp({ create: { width: W, height: H, channels: 3, background: { r: 90 + Math.floor(rand() * 60), g: 80 + Math.floor(rand() * 60), b: 70 + Math.floor(rand() * 60) } } })
        .composite([{ input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect x="${W * 0.05}" y="${H * 0.7}" width="${W * 0.3}" height="${H * 0.2}" fill="#334"/><circle cx="${W * 0.85}" cy="${H * 0.2}" r="${H * 0.1}" fill="#b98"/></svg>`) }])
        .removeAlpha()
        .raw()
        .toBuffer();

  const hCard = Math.min(W, H) * (o.size ?? 0.7);
  const wCard = hCard * (card.width / card.height);
  const a = ((o.rotationDeg ?? 0) * Math.PI) / 180;
  const cx = W / 2 + (rand() - 0.5) * (W - wCard * 1.4) * 0.5;
  const cy = H / 2 + (rand() - 0.5) * (H - hCard * 1.2) * 0.3;
  const p = o.perspective ?? 0;
  const quad = [
    [-wCard / 2, -hCard / 2],
    [wCard / 2, -hCard / 2],
    [wCard / 2, hCard / 2],
    [-wCard / 2, hCard / 2],
  ].map(([x, y]) => {
    const jx = (rand() - 0.5) * 2 * p * wCard;
    const jy = (rand() - 0.5) * 2 * p * wCard;
    return [cx + (x! + jx) * Math.cos(a) - (y! + jy) * Math.sin(a), cy + (x! + jx) * Math.sin(a) + (y! + jy) * Math.cos(a)];
  }) as Quad;

  // Pixel centres on integers (OpenCV): the card's outer pixel edges land on the quad.
  const src = cv.matFromArray(4, 1, cv.CV_32FC2, [-0.5, -0.5, card.width - 0.5, -0.5, card.width - 0.5, card.height - 0.5, -0.5, card.height - 0.5]);
  const dst = cv.matFromArray(4, 1, cv.CV_32FC2, quad.flat());
  const m = cv.getPerspectiveTransform(src, dst);
  const cardMat = new cv.Mat(card.height, card.width, cv.CV_8UC4);
  cardMat.data.set(cardRgba);
  const warped = new cv.Mat();
  cv.warpPerspective(cardMat, warped, m, new cv.Size(W, H), cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(0, 0, 0, 0));
  // The holder, warped with the card's perspective (its top-left at (hol.x, hol.y) in the card's frame).
  let holderData: Uint8Array | null = null;
  if (o.holder) {
    const hol = await holderOverlay(o.holder, card, seed);
    const M = m.data64F;
    const toScene = (x: number, y: number) => {
      const z = M[6]! * x + M[7]! * y + M[8]!;
      return [(M[0]! * x + M[1]! * y + M[2]!) / z, (M[3]! * x + M[4]! * y + M[5]!) / z];
    };
    const corners = [
      [-0.5, -0.5],
      [hol.width - 0.5, -0.5],
      [hol.width - 0.5, hol.height - 0.5],
      [-0.5, hol.height - 0.5],
    ];
    const hs = cv.matFromArray(4, 1, cv.CV_32FC2, corners.flat());
    const hd = cv.matFromArray(4, 1, cv.CV_32FC2, corners.flatMap(([x, y]) => toScene(x! + hol.x, y! + hol.y)));
    const hm = cv.getPerspectiveTransform(hs, hd);
    const holMat = new cv.Mat(hol.height, hol.width, cv.CV_8UC4);
    holMat.data.set(hol.rgba);
    const holWarped = new cv.Mat();
    cv.warpPerspective(holMat, holWarped, hm, new cv.Size(W, H), cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(0, 0, 0, 0));
    holderData = Uint8Array.from(holWarped.data);
    for (const mat of [hs, hd, hm, holMat, holWarped]) mat.delete();
  }
  const wd = warped.data;
  const out = new Uint8Array(W * H * 3);
  const light = o.light ?? 0;
  const noise = o.noise ?? 0;
  const gx = rand() - 0.5;
  const gy = rand() - 0.5;
  for (let i = 0; i < W * H; i++) {
    const alpha = wd[i * 4 + 3]! / 255;
    const x = i % W;
    const y = Math.floor(i / W);
    const gain = 1 + light * ((x / W - 0.5) * gx + (y / H - 0.5) * gy) * 2;
    const over = holderData ? holderData[i * 4 + 3]! / 255 : 0;
    for (let c = 0; c < 3; c++) {
      let v = wd[i * 4 + c]! * alpha + bg[i * 3 + c]! * (1 - alpha);
      if (over) v = holderData![i * 4 + c]! * over + v * (1 - over);
      v = v * gain + (noise ? (rand() - 0.5) * 2 * noise : 0);
      out[i * 3 + c] = Math.max(0, Math.min(255, Math.round(v)));
    }
  }
  for (const mat of [src, dst, m, cardMat, warped]) mat.delete();
  let data = out;
  if (o.blur) data = new Uint8Array(await sharp(out, { raw: { width: W, height: H, channels: 3 } }).blur(o.blur).raw().toBuffer());
  return { image: { data, width: W, height: H }, quad, card };
}

export const standardCard = (margins: [number, number, number, number] = [30, 30, 30, 30]): CardSpec => ({ width: 630, height: 880, margins, border: [240, 205, 40] });
