"""Generated photos of a card in a graded slab, with the card's own corners, for judging a detector
candidate on slabs without the bench: the train split holds one real slab, and the bench's 21
(`graded_slabs`) are validation. The refiner's slab samples are drawn the same way (`scenes.generate`
with `slab=True`), from seeds no training run has used (5,000,000 on).

    python3 training/card-detector/slab_scenes.py --backgrounds <bg dir> --out <folder> [--n 60] [--long 1000] [--flatbed]
    LABELS=<folder>/labels.json NEG=0 npx tsx scripts/card-detector-dev.ts

Each photo is drawn at `--long` px on its long side, with the photo effects the training gives
(light, colour cast, blur, noise, JPEG). Seeds 5,000,000 + k.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import scenes  # noqa: E402

FIRST_SEED = 5_000_000


def flatbed(rng: np.random.Generator, lib: scenes.Library, long: int) -> scenes.Scene:
    """A slab scanned on a flatbed: a plain ground (white, grey or black lid), the slab 85-98 % of the
    frame's height, turned by a degree at most, no perspective."""
    w, h = int(long * rng.uniform(0.62, 0.75)), long
    ground = np.full((h, w, 3), rng.choice([rng.uniform(215, 250), rng.uniform(90, 160), rng.uniform(5, 30)]), np.float32)
    ground += rng.normal(0, 2, ground.shape).astype(np.float32)
    scene = scenes.Scene(w, h, ground)
    scenes.place_card(scene, rng, lib, w / 2 + rng.normal(0, w * 0.01), h / 2 + rng.normal(0, h * 0.01), h * rng.uniform(0.85, 0.98), rng.normal(0, 0.008), 0.0015, 'slab')
    return scene


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--backgrounds', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--n', type=int, default=60)
    ap.add_argument('--long', type=int, default=1000)
    ap.add_argument('--flatbed', action='store_true', help='the slab fills a portrait frame, square on, on a plain ground: a flatbed scan')
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lib = scenes.Library(args.backgrounds, real_faces=False)
    photos = []
    for k in range(args.n):
        rng = np.random.default_rng(FIRST_SEED + k)
        scene = flatbed(rng, lib, args.long) if args.flatbed else scenes.generate(rng, lib, long=args.long, slab=True)
        im = np.clip(scenes.photo_effects(np.clip(scene.img, 0, 255).astype(np.uint8), rng), 0, 255).astype(np.uint8)
        file = os.path.abspath(os.path.join(args.out, f'slab{k:03d}.jpg'))
        cv2.imwrite(file, im, [cv2.IMWRITE_JPEG_QUALITY, 90])
        h, w = im.shape[:2]
        cards = [{'corners': [[float(x), float(y)] for x, y in q], 'hidden': [i for i, (x, y) in enumerate(q) if not (0 <= x < w and 0 <= y < h)], 'kind': 'slab'} for q in scene.cards]
        photos.append({'file': file, 'cards': cards})
    json.dump({'photos': photos}, open(os.path.join(args.out, 'labels.json'), 'w'))
    print(len(photos), 'slab photos in', args.out)


if __name__ == '__main__':
    main()
