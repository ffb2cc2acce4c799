import { describe, expect, it } from 'vitest';
import { boxArea, chooseItem, colorRegion, detectedItems, poseRegions, withWholeImage } from './item-regions.ts';

const kp = (part: string, x: number, y: number, prob = 0.9) => ({ part, x, y, prob });
// A standing person in a 1000 x 1000 photo: shoulders at 200, hips at 500, knees at 700, ankles at 900.
const standing = [
  kp('leftShoulder', 400, 200), kp('rightShoulder', 600, 200), kp('leftElbow', 380, 350), kp('rightElbow', 620, 350),
  kp('leftWrist', 370, 480), kp('rightWrist', 630, 480), kp('leftHip', 430, 500), kp('rightHip', 570, 500),
  kp('leftKnee', 440, 700), kp('rightKnee', 560, 700), kp('leftAnkle', 445, 900), kp('rightAnkle', 555, 900),
];

describe('poseRegions', () => {
  it('gives upper body, lower body, full body and footwear where their keypoints are seen', () => {
    const items = poseRegions(standing, 0.8, 1000, 1000);
    const byName = Object.fromEntries(items.map((i) => [i.name, i.box]));
    expect(Object.keys(byName).sort()).toEqual(['footwear', 'full body', 'lower body', 'upper body']);
    const [ux0, uy0, ux1, uy1] = byName['upper body']!;
    expect(uy0).toBeLessThan(200);
    expect(uy1).toBe(500);
    expect(ux0).toBeLessThanOrEqual(370);
    expect(ux1).toBeGreaterThanOrEqual(630);
    expect(byName['lower body']![1]).toBe(500);
    expect(byName['lower body']![3]).toBeGreaterThanOrEqual(900);
    const foot = byName.footwear!;
    expect(foot[1]).toBeLessThan(900);
    expect(foot[3]).toBeGreaterThan(900);
    expect(byName['full body']).toEqual([Math.min(byName['upper body']![0], byName['lower body']![0]), uy0, Math.max(ux1, byName['lower body']![2]), byName['lower body']![3]]);
  });

  it('leaves out what it cannot see: weak keypoints, legs cut off by the frame', () => {
    const portrait = standing.filter((k) => /Shoulder|Elbow|Wrist|Hip/.test(k.part)).map((k) => (k.part.includes('Hip') ? { ...k, prob: 0.1 } : k));
    expect(poseRegions(portrait, 0.8, 1000, 1000)).toEqual([]);
    const cut = [...standing.filter((k) => /Shoulder|Elbow|Wrist|Hip/.test(k.part)), kp('leftKnee', 440, 520), kp('rightKnee', 560, 520)];
    expect(poseRegions(cut, 0.8, 1000, 1000).map((i) => i.name)).toEqual(['upper body']);
  });

  it("leaves out a torso the frame's side cuts to a sliver (h242: 24 px of a 428 px dress, coloured by the backdrop)", () => {
    // the same person 600 px to the right in a 1000 px wide photo: only the left edge of their torso is in it
    const beyond = standing.map((k) => ({ ...k, x: k.x + 600 }));
    expect(poseRegions(beyond, 0.8, 1000, 1000).map((i) => i.name)).not.toContain('upper body');
    // half of them in the frame: still a garment
    const half = standing.map((k) => ({ ...k, x: k.x + 450 }));
    expect(poseRegions(half, 0.8, 1000, 1000).map((i) => i.name)).toContain('upper body');
    // a person seen side-on, in full view, is narrow but not cut: their garment stays (h247: it was dropped)
    const side = [
      kp('leftShoulder', 500, 200), kp('rightShoulder', 506, 200), kp('leftElbow', 512, 350), kp('leftWrist', 522, 480),
      kp('leftHip', 505, 500), kp('rightHip', 509, 500), kp('leftKnee', 507, 700), kp('leftAnkle', 508, 900),
    ];
    expect(poseRegions(side, 0.8, 1000, 1000).map((i) => i.name)).toEqual(expect.arrayContaining(['upper body', 'full body']));
    // nor at a frame's edge, its padding trimmed (h248: a 2 px trim dropped it)
    for (const dx of [-490, 470]) expect(poseRegions(side.map((k) => ({ ...k, x: k.x + dx })), 0.8, 1000, 1000).map((i) => i.name), String(dx)).toContain('upper body');
    // legs the frame's side cuts to a strip are no garment either (h248: a 4 px strip at x = 0)
    expect(poseRegions(standing.map((k) => ({ ...k, x: k.x - 580 })), 0.8, 1000, 1000).map((i) => i.name)).not.toContain('lower body');
  });

  it('clips regions to the image', () => {
    for (const i of poseRegions(standing.map((k) => ({ ...k, y: k.y + 80 })), 0.8, 1000, 1000)) {
      expect(i.box[3]).toBeLessThanOrEqual(1000);
      expect(boxArea(i.box)).toBeGreaterThan(0);
    }
  });
});

describe('items and the chosen one', () => {
  const det = [
    { name: 'handbag', prob: 0.6, bound_box: [0, 0, 100, 100] as [number, number, number, number] },
    { name: 'chair', prob: 0.9, bound_box: [0, 0, 500, 500] as [number, number, number, number] },
    { name: 'tie', prob: 0.2, bound_box: [0, 0, 300, 300] as [number, number, number, number] },
  ];
  it('keeps each domain its own detector labels, confident ones only', () => {
    expect(detectedItems(det, 'fashion').map((i) => i.name)).toEqual(['handbag']);
    expect(detectedItems(det, 'homedecor').map((i) => i.name)).toEqual(['chair']);
  });

  it('orders largest first, stands the whole image in for nothing, and chooses by wanted kinds', () => {
    const items = withWholeImage([...detectedItems(det, 'fashion'), ...poseRegions(standing, 0.8, 1000, 1000)], 1000, 1000);
    expect(items[0]!.name).toBe('full body');
    expect(chooseItem(items, undefined)!.name).toBe('full body');
    expect(chooseItem(items, ['handbag', 'footwear'])!.name).toBe('footwear');
    expect(chooseItem(items, ['suitcase'])).toBeUndefined();
    // categories that name no kind the server knows: no item matches, the whole image is the item
    expect(chooseItem(items, [])).toBeUndefined();
    expect(withWholeImage([], 640, 480)).toEqual([{ name: 'item', prob: 1, box: [0, 0, 640, 480] }]);
  });
});

describe('waist-up photos and small items', () => {
  it('runs the top from the shoulders to the bottom of the person when no hip is seen', () => {
    const waistUp = standing.filter((k) => /Shoulder|Elbow/.test(k.part));
    expect(poseRegions(waistUp, 0.8, 1000, 1000)).toEqual([]);
    const items = poseRegions(waistUp, 0.8, 1000, 1000, [350, 100, 650, 420]);
    expect(items.map((i) => i.name)).toEqual(['upper body']);
    expect(items[0]!.box[3]).toBe(420);
    expect(items[0]!.box[1]).toBeLessThan(200);
  });

  it('takes the whole image rather than an item under 2 % of it, unless that kind was asked for', () => {
    const tie = [{ name: 'tie', prob: 0.5, box: [0, 0, 100, 100] as [number, number, number, number] }];
    expect(chooseItem(tie, undefined, 1000 * 1000)).toBeUndefined();
    expect(chooseItem(tie, ['tie'], 1000 * 1000)!.name).toBe('tie');
    expect(chooseItem(tie, undefined, 300 * 300)!.name).toBe('tie');
  });
});

describe('colorRegion', () => {
  it('reads a pose garment in the middle of its region, background kept; other items on their box', () => {
    const upper = colorRegion({ name: 'upper body', prob: 0.9, box: [100, 200, 300, 400] });
    expect(upper.keepBackground).toBe(true);
    const [x0, y0, x1, y1] = upper.box;
    expect(x0).toBeGreaterThan(100);
    expect(x1).toBeLessThan(300);
    expect(y0).toBeGreaterThan(200);
    expect(y1).toBeLessThan(400);
    // Centred across: the arms at both sides are left out alike.
    expect(x0 - 100).toBeCloseTo(300 - x1, 6);
    expect(colorRegion({ name: 'handbag', prob: 0.9, box: [1, 2, 3, 4] })).toEqual({ box: [1, 2, 3, 4], keepBackground: false });
    expect(colorRegion({ name: 'item', prob: 1, box: [0, 0, 50, 50] }).keepBackground).toBe(false);
  });
});
