"""Backgrounds for the generated scenes: photos from Debian wallpaper packages and the sample
images inside @vladmandic/human, resized to at most 1024 px, duplicates dropped.

    python3 training/card-detector/gather_backgrounds.py <out folder>

Needs apt-get (packages come from the machine's configured Debian sources) and node_modules.
"""
import glob
import hashlib
import os
import subprocess
import sys
import tempfile

import cv2

PACKAGES = ['ukui-wallpapers', 'lomiri-wallpapers', 'lomiri-wallpapers-20.04', 'plasma-workspace-wallpapers', 'gnome-backgrounds', 'desktop-base']


def small_hash(im) -> str:
    """Equal for a photo and its copies (resized, re-encoded): duplicates are dropped by it."""
    return hashlib.md5(cv2.resize(im, (8, 8)).tobytes()).hexdigest()


def fit(im, long: int = 1024):
    """Shrunk so its long edge is at most `long`."""
    k = long / max(im.shape[:2])
    return cv2.resize(im, None, fx=min(1, k), fy=min(1, k), interpolation=cv2.INTER_AREA)


def package_photos(packages: list[str], tmp: str, min_bytes: int = 0) -> list[str]:
    """The photos inside Debian packages (downloaded into `tmp` from the machine's sources),
    sorted by their path inside the package tree, so the order does not depend on `tmp`."""
    subprocess.run(['apt-get', 'download', *packages], cwd=tmp, check=True)
    for deb in sorted(glob.glob(os.path.join(tmp, '*.deb'))):
        subprocess.run(['dpkg-deb', '-x', deb, os.path.join(tmp, 'x')], check=True)
    src = [p for p in glob.glob(os.path.join(tmp, 'x/**/*'), recursive=True) if p.lower().endswith(('.jpg', '.jpeg', '.png')) and os.path.getsize(p) > min_bytes]
    return sorted(src, key=lambda q: q.split('/x/', 1)[-1])


def distinct_photos(paths, seen: set):
    """Each readable photo of `paths` at least 400 px on its short side, fitted, unless its hash is in `seen` (which it joins)."""
    for p in paths:
        im = cv2.imread(p, cv2.IMREAD_COLOR)
        if im is None or min(im.shape[:2]) < 400:
            continue
        im = fit(im)
        h = small_hash(im)
        if h in seen:
            continue
        seen.add(h)
        yield im


def main(out: str):
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = package_photos(PACKAGES, tmp, min_bytes=100_000)
        repo = os.path.join(os.path.dirname(__file__), '../..')
        human = [p for p in glob.glob(os.path.join(repo, 'node_modules/@vladmandic/human/assets/*')) if p.lower().endswith(('.jpg', '.jpeg', '.png'))]
        if not human:
            # without them the folder is 70 photos, not the 80 the shipped models learnt from (2026-12-06)
            raise SystemExit('no @vladmandic/human sample photos under node_modules: run npm install first')
        src += human
        n = 0
        # sorted by path inside the package tree, so the numbering does not depend on the temp folder
        for im in distinct_photos(sorted(src, key=lambda q: q.split('/x/', 1)[-1]), set()):
            cv2.imwrite(os.path.join(out, f'bg{n:03d}.jpg'), im, [cv2.IMWRITE_JPEG_QUALITY, 92])
            n += 1
    print(n, 'backgrounds in', out)

if __name__ == '__main__':
    main(sys.argv[1])
