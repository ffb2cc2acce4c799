"""Packs what the first stage's training reads into one folder that travels to the accelerator.

    python3 training/card-detector/pack_for_accelerator.py --backgrounds <bg dir> [--out .gpu] [--quality 75]

The accelerator gets the working tree and the folders named in its `carry`, 64 MiB in all, and
not `../shared`. This writes `<out>/shared/datasets` (the SV151 scans at the 700 px `scenes.Library`
reads them at, JPEG at `--quality`; the MTG scans as they are; the train split's labelled real
photos and a manifest of them alone: the validation split never travels) and `<out>/bg` (the
backgrounds), and says whether the whole fits. Put the folder's name in `.git/info/exclude`, carry
it, and run there with `LOUPE_SHARED=<out>/shared` and `--backgrounds <out>/bg`
(docs/card-detector.md, "Training on the accelerator").
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

import cv2

sys.path.insert(0, os.path.dirname(__file__))
import scenes  # noqa: E402

LIMIT = 64 * 1024 * 1024


def folder_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument('--backgrounds', required=True)
    ap.add_argument('--out', default='.gpu')
    ap.add_argument('--quality', type=int, default=75, help='JPEG quality of the SV151 scans (75 fitted beside a 16 MiB tree in 2026-11)')
    ap.add_argument('--shared', default=os.environ.get('LOUPE_SHARED', os.path.join(here, '../../../shared')))
    args = ap.parse_args()
    src = os.path.join(args.shared, 'datasets')
    dst = os.path.join(args.out, 'shared', 'datasets')
    os.makedirs(os.path.join(dst, 'pokemon_sv151_reference', 'images'), exist_ok=True)
    for p in sorted(glob.glob(os.path.join(src, 'pokemon_sv151_reference/images/*.jpg'))):
        im = scenes._read(p, 700)  # as Library reads them
        cv2.imwrite(os.path.join(dst, 'pokemon_sv151_reference/images', os.path.basename(p)), im, [cv2.IMWRITE_JPEG_QUALITY, args.quality])
    shutil.copytree(os.path.join(src, 'mtg_gatherer_reference'), os.path.join(dst, 'mtg_gatherer_reference'), dirs_exist_ok=True)
    manifest = json.load(open(os.path.join(src, 'real_card_photos/manifest.json')))
    # what scenes.Library reads: the train split's Shrey photos; never the validation split
    manifest['files'] = [f for f in manifest['files'] if f['split'] == 'train' and f['file'].startswith('shrey')]
    os.makedirs(os.path.join(dst, 'real_card_photos'), exist_ok=True)
    json.dump(manifest, open(os.path.join(dst, 'real_card_photos/manifest.json'), 'w'))
    for f in manifest['files']:
        to = os.path.join(dst, 'real_card_photos', f['file'])
        os.makedirs(os.path.dirname(to), exist_ok=True)
        shutil.copy(os.path.join(src, 'real_card_photos', f['file']), to)
    os.makedirs(os.path.join(args.out, 'bg'), exist_ok=True)
    for p in sorted(glob.glob(os.path.join(args.backgrounds, '*.jpg'))):
        shutil.copy(p, os.path.join(args.out, 'bg'))
    tracked = subprocess.run(['git', 'ls-files', '-z'], capture_output=True, check=True).stdout.decode().split('\0')
    tree = sum(os.path.getsize(f) for f in tracked if f and os.path.isfile(f))
    packed = folder_bytes(args.out)
    total = tree + packed
    print(json.dumps({'packed_mib': round(packed / 2**20, 1), 'tracked_mib': round(tree / 2**20, 1), 'total_mib': round(total / 2**20, 1), 'fits': total < LIMIT}))
    if total >= LIMIT:
        raise SystemExit(f'{total / 2**20:.1f} MiB would travel, over 64: lower --quality')


if __name__ == '__main__':
    main()
