"""No-card photos for choosing the card detector's thresholds ("set C" in docs/card-detector.md):
never trained on, never the bench's (Caltech, validation).

    python3 training/card-detector/threshold_set.py <out folder>
    NEG_DIR=<out folder> npx tsx scripts/card-detector-dev.ts

The out folder gets 50 photos of three Debian wallpaper packages that gather_backgrounds.py does
not use (duplicates of its backgrounds dropped), and every threshold photo (faces_persons, UKBench,
the train split's shop photos, those wallpapers) twice more: shrunk to a 300 px long edge, and at
300 px inside a white mat of 8 % of its short side. The Caltech photos the detector took for cards
were small photos taken whole and framed prints; large clean photos do not show that.
The dev script adds the 89 unshrunk faces_persons, UKBench and shop photos itself.
Needs apt-get (the machine's configured Debian sources) and gather_backgrounds.py's folder as
`--backgrounds` to drop duplicates.
"""
import argparse
import glob
import json
import os
import sys
import tempfile

import cv2

sys.path.insert(0, os.path.dirname(__file__))
from gather_backgrounds import distinct_photos, package_photos, small_hash  # noqa: E402

PACKAGES = ['mate-backgrounds', 'lomiri-wallpapers-16.04', 'sway-backgrounds']
DATASETS = os.path.join(os.path.dirname(__file__), '../../../shared/datasets')


def to_long(im, n: int):
    k = n / max(im.shape[:2])
    return cv2.resize(im, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--backgrounds', required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    seen = {small_hash(cv2.imread(p)) for p in glob.glob(os.path.join(args.backgrounds, '*.jpg'))}
    wallpapers = []
    with tempfile.TemporaryDirectory() as tmp:
        for im in distinct_photos(package_photos(PACKAGES, tmp), seen):
            path = os.path.join(args.out, f't{len(wallpapers):03d}.jpg')
            cv2.imwrite(path, im, [cv2.IMWRITE_JPEG_QUALITY, 92])
            wallpapers.append(path)
    photos = glob.glob(os.path.join(DATASETS, 'faces_persons/**/*'), recursive=True) + glob.glob(os.path.join(DATASETS, 'near_duplicates_ukbench/**/*'), recursive=True)
    photos = [p for p in photos if p.lower().endswith(('.jpg', '.jpeg', '.png'))]
    manifest = json.load(open(os.path.join(DATASETS, 'real_card_photos/manifest.json')))['files']
    photos += [os.path.join(DATASETS, 'real_card_photos', f['file']) for f in manifest if f['file'].startswith('shrey') and f['split'] == 'train' and not f['labels']['cards']]
    n = 0
    for i, p in enumerate(sorted(photos) + wallpapers):
        im = cv2.imread(p, cv2.IMREAD_COLOR)
        if im is None:  # UKBench ships a deliberately corrupt file
            continue
        cv2.imwrite(os.path.join(args.out, f's{i:03d}.jpg'), to_long(im, 300), [cv2.IMWRITE_JPEG_QUALITY, 90])
        m = int(0.08 * min(im.shape[:2]))
        mat = cv2.copyMakeBorder(im, m, m, m, m, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        cv2.imwrite(os.path.join(args.out, f'm{i:03d}.jpg'), to_long(mat, 300), [cv2.IMWRITE_JPEG_QUALITY, 90])
        n += 1
    print(len(wallpapers), 'wallpapers,', n, 'photos shrunk and matted, in', args.out)


if __name__ == '__main__':
    main()
