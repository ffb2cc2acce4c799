"""Generated training scenes for the card detector.

Every scene is drawn from a seeded random generator, so the same seed gives the same scene.
A scene is a 256x256 letterboxed photo (the network's input, as the server prepares it) and
its targets at half resolution:
  0 card      the card's own surface (the card inside a slab or sleeve, not the holder)
  1 centre    each card shrunk to half its size about its centre: touching cards stay apart
  2 corners   a small Gaussian at each card corner
  3 holder    a slab's shell, a top-loader or a sleeve
  4 label     a slab's grading label
and a per-channel weight map (0 where a real photo's label does not say).
"""
from __future__ import annotations

import glob
import json
import math
import os

import cv2
import numpy as np

SIZE = 256
OUT = SIZE // 2
CHANNELS = 5
SHARED = os.environ.get('LOUPE_SHARED', os.path.join(os.path.dirname(__file__), '../../../shared'))
DATASETS = os.path.join(SHARED, 'datasets')


def _read(path: str, max_edge: int = 900) -> np.ndarray | None:
    im = cv2.imread(path, cv2.IMREAD_COLOR)
    if im is None:
        return None
    k = max_edge / max(im.shape[:2])
    if k < 1:
        im = cv2.resize(im, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    return im


def order_quad(q: np.ndarray) -> np.ndarray:
    """Upper-left, upper-right, lower-right, lower-left, as the server orders corners."""
    q = np.asarray(q, np.float64)
    c = q.mean(0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]  # clockwise in image coordinates, starting anywhere
    start = int(np.argmin(q[:, 0] + q[:, 1]))
    return np.roll(q, -start, axis=0)


class Library:
    """Card faces, backgrounds and real labelled photos, loaded once."""

    def __init__(self, backgrounds: str, real_split: str = 'train', real_faces: bool = True, hand_labels: str = ''):
        self.faces: list[np.ndarray] = []
        for p in sorted(glob.glob(os.path.join(DATASETS, 'pokemon_sv151_reference/images/*.jpg'))):
            im = _read(p, 700)
            if im is not None:
                self.faces.append(im)
        for p in sorted(glob.glob(os.path.join(DATASETS, 'mtg_gatherer_reference/cards/*'))):
            im = _read(p, 700)
            if im is not None:
                self.faces.append(im)
        self.official = len(self.faces)  # the scans above; real faces and others follow
        self.backgrounds = [im for im in (_read(p, 1024) for p in sorted(glob.glob(os.path.join(backgrounds, '*.jpg')))) if im is not None]
        # Real photos: only the train split of real_card_photos (the val split is never seen here).
        self.real: list[tuple[np.ndarray, list[dict]]] = []
        manifest = json.load(open(os.path.join(DATASETS, 'real_card_photos/manifest.json')))
        # Corners placed by eye (train-corners.json) replace the source's polygons, which lie off
        # the card; the refiner's dev fifth keeps the source's, so that split stays unseen by them.
        hand: dict[str, list[dict]] = {}
        if hand_labels:
            import corners  # noqa: PLC0415 (corners imports nothing from here)
            for p in json.load(open(hand_labels))['photos']:
                name = p['file'].removeprefix('real_card_photos/')
                if not corners.in_dev(name):
                    hand[name] = [{'polygon': c['corners'], 'box': None} for c in p['cards']]
        for f in manifest['files']:
            if f['split'] != real_split or not f['file'].startswith('shrey'):
                continue
            im = cv2.imread(os.path.join(DATASETS, 'real_card_photos', f['file']), cv2.IMREAD_COLOR)
            if im is not None:
                self.real.append((im, hand.get(f['file'], f['labels']['cards'])))
        # Real card faces: the train photos' quads warped upright. Their source outlines lie a pixel
        # or two outside the card, so the corner refiner, which learns exact edges, goes without them.
        for im, cards in (self.real if real_faces else []):
            for c in cards:
                poly = c.get('polygon')
                if poly and len(poly) == 4:
                    q = order_quad(np.array(poly))
                    w = int(np.linalg.norm(q[1] - q[0]))
                    if w < 120:
                        continue
                    if np.linalg.norm(q[3] - q[0]) < np.linalg.norm(q[1] - q[0]):
                        q = np.roll(q, -1, axis=0)  # a card lying sideways: stand it up
                    W, H = 300, 419
                    M = cv2.getPerspectiveTransform(q.astype(np.float32), np.float32([[0, 0], [W, 0], [W, H], [0, H]]))
                    self.faces.append(cv2.warpPerspective(im, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


# ---------------------------------------------------------------- drawing helpers

def rounded_mask(w: int, h: int, r: float) -> np.ndarray:
    m = np.zeros((h * 4, w * 4), np.uint8)
    R = max(1, int(r * 4))
    cv2.rectangle(m, (R, 0), (w * 4 - R - 1, h * 4 - 1), 255, -1)
    cv2.rectangle(m, (0, R), (w * 4 - 1, h * 4 - R - 1), 255, -1)
    for cx, cy in ((R, R), (w * 4 - R - 1, R), (w * 4 - R - 1, h * 4 - R - 1), (R, h * 4 - R - 1)):
        cv2.circle(m, (cx, cy), R, 255, -1, cv2.LINE_AA)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


def fake_text(img: np.ndarray, rng: np.random.Generator, x0: int, y0: int, x1: int, y1: int, color, lines: int):
    h = max(2, (y1 - y0) // max(1, lines * 2))
    for i in range(lines):
        y = y0 + i * 2 * h + h // 2
        x = x0
        while x < x1 - 4:
            wlen = int(rng.integers(3, 12)) * max(1, h // 2)
            cv2.rectangle(img, (x, y), (min(x1, x + wlen), y + max(1, h - 1)), color, -1)
            x += wlen + max(2, h // 2)


def synthetic_face(rng: np.random.Generator, lib: Library) -> np.ndarray:
    """A made-up card design: bordered, borderless (full art), sports-style white frame, or a card back."""
    W, H = 300, 419
    bg = lib.backgrounds[rng.integers(len(lib.backgrounds))]
    art = random_crop(rng, bg, W, H)
    kind = rng.choice(['border', 'fullart', 'sports', 'back'], p=[0.45, 0.2, 0.2, 0.15])
    img = art.copy()
    if kind == 'back':
        c1 = rng.integers(0, 255, 3).tolist()
        img[:] = c1
        cv2.ellipse(img, (W // 2, H // 2), (int(W * 0.35), int(H * 0.3)), float(rng.uniform(0, 180)), 0, 360, rng.integers(0, 255, 3).tolist(), -1, cv2.LINE_AA)
        b = int(W * rng.uniform(0.03, 0.07))
        cv2.rectangle(img, (0, 0), (W - 1, H - 1), rng.integers(0, 255, 3).tolist(), b * 2)
        return img
    if kind in ('border', 'sports'):
        b = int(W * rng.uniform(0.025, 0.075))
        colors = [(20, 20, 20), (235, 235, 235), (40, 200, 240), (190, 190, 195), (120, 60, 20), (30, 30, 150)]
        col = colors[rng.integers(len(colors))] if kind == 'border' else (245, 245, 245)
        col = tuple(int(np.clip(c + rng.normal(0, 12), 0, 255)) for c in col)
        frame = np.zeros_like(img)
        frame[:] = col
        inner = cv2.resize(art, (W - 2 * b, H - 2 * b))
        frame[b:H - b, b:W - b] = inner
        img = frame
        if kind == 'border' and rng.random() < 0.7:
            # name bar, art box and text box: the inner printed frames a detector must not take
            tb = int(H * rng.uniform(0.5, 0.62))
            panel = tuple(int(x) for x in rng.integers(150, 255, 3))
            cv2.rectangle(img, (b, tb), (W - b - 1, H - b - 1), panel, -1)
            cv2.rectangle(img, (b + 3, b + 4), (W - b - 4, tb - 4), rng.integers(0, 255, 3).tolist(), int(rng.integers(1, 4)))
            fake_text(img, rng, b + 8, tb + 10, W - b - 8, H - b - 10, (30, 30, 30), int(rng.integers(3, 7)))
            fake_text(img, rng, b + 6, b + 4, W // 2, b + 18, (20, 20, 20), 1)
    else:
        fake_text(img, rng, 12, 10, W // 2, 28, tuple(int(x) for x in rng.integers(0, 255, 3)), 1)
    return img


def random_crop(rng: np.random.Generator, img: np.ndarray, w: int, h: int) -> np.ndarray:
    H, W = img.shape[:2]
    s = rng.uniform(0.3, 1.0) * min(W / w, H / h)
    cw, ch = max(8, int(w * s)), max(8, int(h * s))
    x = int(rng.integers(0, max(1, W - cw + 1)))
    y = int(rng.integers(0, max(1, H - ch + 1)))
    crop = img[y:y + ch, x:x + cw]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return cv2.resize(np.ascontiguousarray(crop), (w, h), interpolation=cv2.INTER_AREA)


def procedural_background(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    kind = rng.choice(['solid', 'wood', 'cloth', 'gradient'])
    base = rng.integers(0, 255, 3).astype(np.float32)
    if kind == 'solid':
        img = np.ones((h, w, 3), np.float32) * base
        img += rng.normal(0, rng.uniform(1, 8), (h, w, 1))
    elif kind == 'wood':
        yy = np.arange(h, dtype=np.float32)[:, None]
        xx = np.arange(w, dtype=np.float32)[None, :]
        f = rng.uniform(0.02, 0.15)
        warp = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 20) * 40
        grain = np.sin((yy + warp) * f + xx * rng.uniform(-0.01, 0.01)) * 0.5 + 0.5
        tone = np.array([40, 90, 150], np.float32) * rng.uniform(0.5, 1.4)
        img = tone * (0.7 + 0.3 * grain[..., None])
    elif kind == 'cloth':
        n = rng.normal(0, 1, (h, w)).astype(np.float32)
        img = base * (1 + 0.08 * cv2.GaussianBlur(n, (0, 0), rng.uniform(0.5, 2)))[..., None]
    else:
        t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
        other = rng.integers(0, 255, 3).astype(np.float32)
        img = base * (1 - t) + other * t
        img = np.broadcast_to(img, (h, w, 3)).copy()
    return np.clip(img, 0, 255).astype(np.uint8)


def background(rng: np.random.Generator, lib: Library, w: int, h: int) -> np.ndarray:
    if rng.random() < 0.55 and lib.backgrounds:
        img = random_crop(rng, lib.backgrounds[rng.integers(len(lib.backgrounds))], w, h)
        if rng.random() < 0.5:  # out of focus, as behind a card on a table
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(1, 6))
        return img
    return procedural_background(rng, w, h)


# ---------------------------------------------------------------- scene assembly

class Scene:
    def __init__(self, w: int, h: int, img: np.ndarray):
        self.w, self.h = w, h
        self.img = img.astype(np.float32)
        self.cards: list[np.ndarray] = []  # quads in scene pixels
        self.holders: list[np.ndarray] = []
        self.labels: list[np.ndarray] = []

    def paste(self, src: np.ndarray, alpha: np.ndarray, M: np.ndarray, opacity: float = 1.0):
        warped = cv2.warpPerspective(src.astype(np.float32), M, (self.w, self.h), flags=cv2.INTER_LINEAR)
        a = cv2.warpPerspective(alpha.astype(np.float32) / 255.0, M, (self.w, self.h), flags=cv2.INTER_LINEAR)[..., None] * opacity
        self.img = self.img * (1 - a) + warped * a

    def shade(self, alpha: np.ndarray, M: np.ndarray, strength: float, blur: float, offset=(0, 0)):
        a = cv2.warpPerspective(alpha.astype(np.float32) / 255.0, M, (self.w, self.h))
        a = np.roll(a, offset, axis=(0, 1))
        a = cv2.GaussianBlur(a, (0, 0), max(0.5, blur))
        self.img *= (1 - strength * a)[..., None]


def card_homography(rng: np.random.Generator, cw: int, ch: int, cx: float, cy: float, size: float, angle: float, tilt: float) -> np.ndarray:
    """Card-plane (cw x ch) to scene: placed at (cx, cy), `size` px tall, rotated, with some perspective."""
    s = size / ch
    pts = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]]) - np.float32([cw / 2, ch / 2])
    pts *= s
    c, sn = math.cos(angle), math.sin(angle)
    pts = pts @ np.float32([[c, sn], [-sn, c]])
    # perspective: move each corner a little, more for stronger tilt
    pts += rng.normal(0, tilt * size, pts.shape).astype(np.float32)
    pts += np.float32([cx, cy])
    return cv2.getPerspectiveTransform(np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]]), pts)


def apply(M: np.ndarray, pts) -> np.ndarray:
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(p, M.astype(np.float64)).reshape(-1, 2)


def card_face(rng: np.random.Generator, lib: Library) -> tuple[np.ndarray, np.ndarray]:
    face = lib.faces[rng.integers(len(lib.faces))] if rng.random() < 0.65 else synthetic_face(rng, lib)
    aspect = rng.uniform(0.68, 0.73)
    W = 300
    H = int(round(W / aspect))
    face = cv2.resize(face, (W, H), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        face = np.ascontiguousarray(face[::-1, ::-1])  # upside down is still a card
    r = W * rng.uniform(0.01, 0.055)
    return face, rounded_mask(W, H, r)


def slab_parts(rng: np.random.Generator, face: np.ndarray, fmask: np.ndarray):
    """A graded slab drawn in its own plane: shell, label insert, inner well, card. Returns the
    slab image, its alpha, the card's and the label's quads in slab pixels."""
    fh, fw = face.shape[:2]
    margin = int(fw * rng.uniform(0.05, 0.11))
    well = int(fw * rng.uniform(0.02, 0.05))
    label_h = int(fh * rng.uniform(0.2, 0.3))
    W = fw + 2 * (margin + well)
    H = fh + label_h + 3 * margin + 2 * well
    # the shell is clear plastic: mostly the scene shows through, so its look is a tint and its edges
    img = np.zeros((H, W, 3), np.uint8)
    tint = rng.integers(150, 255, 3)
    img[:] = tint
    alpha = np.full((H, W), int(rng.uniform(40, 110)), np.uint8)
    edge = int(max(2, fw * 0.012))
    cv2.rectangle(img, (0, 0), (W - 1, H - 1), rng.integers(120, 255, 3).tolist(), edge)
    cv2.rectangle(alpha, (0, 0), (W - 1, H - 1), 230, edge)
    # label
    lx0, ly0 = margin, margin
    lx1, ly1 = W - margin, margin + label_h
    style = rng.choice(['psa', 'bgs', 'cgc', 'plain'])
    lab_bg = {'psa': (245, 245, 245), 'bgs': (200, 200, 205), 'cgc': (235, 225, 215), 'plain': tuple(int(x) for x in rng.integers(180, 255, 3))}[style]
    cv2.rectangle(img, (lx0, ly0), (lx1, ly1), lab_bg, -1)
    border = {'psa': (30, 30, 200), 'bgs': (60, 160, 200), 'cgc': (160, 90, 20), 'plain': tuple(int(x) for x in rng.integers(0, 255, 3))}[style]
    cv2.rectangle(img, (lx0, ly0), (lx1, ly1), border, max(2, label_h // 12))
    fake_text(img, rng, lx0 + 10, ly0 + 10, int(lx0 + (lx1 - lx0) * 0.65), ly1 - 10, (20, 20, 20), 3)
    cv2.putText(img, str(int(rng.integers(1, 11))), (int(lx1 - label_h * 0.9), int(ly1 - label_h * 0.3)), cv2.FONT_HERSHEY_SIMPLEX, label_h / 40, (20, 20, 20), max(1, label_h // 20))
    alpha[ly0:ly1, lx0:lx1] = 255
    # inner well around the card: a raised frame, often a different tone
    wx0, wy0 = margin, ly1 + margin
    wx1, wy1 = W - margin, wy0 + fh + 2 * well
    well_col = rng.integers(0, 255, 3).tolist() if rng.random() < 0.4 else tint.tolist()
    cv2.rectangle(img, (wx0, wy0), (wx1, wy1), well_col, -1)
    alpha[wy0:wy1, wx0:wx1] = np.maximum(alpha[wy0:wy1, wx0:wx1], int(rng.uniform(60, 200)))
    cv2.rectangle(img, (wx0, wy0), (wx1, wy1), rng.integers(100, 255, 3).tolist(), max(1, edge // 2))
    cx0, cy0 = wx0 + well, wy0 + well
    card_alpha = fmask.astype(np.float32) / 255
    region = img[cy0:cy0 + fh, cx0:cx0 + fw].astype(np.float32)
    img[cy0:cy0 + fh, cx0:cx0 + fw] = (region * (1 - card_alpha[..., None]) + face * card_alpha[..., None]).astype(np.uint8)
    alpha[cy0:cy0 + fh, cx0:cx0 + fw] = np.maximum(alpha[cy0:cy0 + fh, cx0:cx0 + fw], fmask)
    card_q = np.float64([[cx0, cy0], [cx0 + fw, cy0], [cx0 + fw, cy0 + fh], [cx0, cy0 + fh]])
    label_q = np.float64([[lx0, ly0], [lx1, ly0], [lx1, ly1], [lx0, ly1]])
    return img, alpha, card_q, label_q


def holder_parts(rng: np.random.Generator, face: np.ndarray, fmask: np.ndarray):
    """A penny sleeve or a top-loader around the card."""
    fh, fw = face.shape[:2]
    if rng.random() < 0.5:  # penny sleeve: a little larger, open at the top
        sx, top, bottom = int(fw * 0.02), int(fh * rng.uniform(0.03, 0.08)), int(fh * 0.01)
    else:  # top-loader: rigid, wider, card sits low
        sx, top, bottom = int(fw * rng.uniform(0.07, 0.12)), int(fh * rng.uniform(0.08, 0.16)), int(fh * rng.uniform(0.0, 0.04))
    W, H = fw + 2 * sx, fh + top + bottom
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = rng.integers(200, 255, 3)
    alpha = np.full((H, W), int(rng.uniform(15, 70)), np.uint8)
    e = max(1, int(fw * rng.uniform(0.004, 0.02)))
    cv2.rectangle(img, (0, 0), (W - 1, H - 1), rng.integers(150, 255, 3).tolist(), e)
    cv2.rectangle(alpha, (0, 0), (W - 1, H - 1), 200, e)
    region = img[top:top + fh, sx:sx + fw].astype(np.float32)
    a = fmask.astype(np.float32)[..., None] / 255
    img[top:top + fh, sx:sx + fw] = (region * (1 - a) + face * a).astype(np.uint8)
    alpha[top:top + fh, sx:sx + fw] = np.maximum(alpha[top:top + fh, sx:sx + fw], fmask)
    card_q = np.float64([[sx, top], [sx + fw, top], [sx + fw, top + fh], [sx, top + fh]])
    return img, alpha, card_q


def film(scene: Scene, M: np.ndarray, w: int, h: int, rng: np.random.Generator, strength: float):
    """The holder's film over the card: haze and a glare streak."""
    a = cv2.warpPerspective(np.ones((h, w), np.float32), M, (scene.w, scene.h))
    haze = strength * a
    scene.img = scene.img * (1 - haze[..., None]) + 255 * haze[..., None]


def glare(scene: Scene, rng: np.random.Generator):
    cx, cy = rng.uniform(0, scene.w), rng.uniform(0, scene.h)
    ax, ay = rng.uniform(0.03, 0.3) * scene.w, rng.uniform(0.01, 0.15) * scene.h
    m = np.zeros((scene.h, scene.w), np.float32)
    cv2.ellipse(m, (int(cx), int(cy)), (int(ax), int(ay)), float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    m = cv2.GaussianBlur(m, (0, 0), max(1.0, min(ax, ay) * rng.uniform(0.2, 0.8))) * rng.uniform(0.3, 0.9)
    scene.img = scene.img * (1 - m[..., None]) + 255 * m[..., None]


def distractor(scene: Scene, rng: np.random.Generator, lib: Library):
    """Rectangles that are not cards: a book, a phone, a sheet of paper, a panel, a label strip."""
    kind = rng.choice(['rect', 'paper', 'label', 'panel'])
    w = int(scene.w * rng.uniform(0.1, 0.6))
    h = int(w * (rng.choice([1.0, 1.41, 0.5, 2.0, 0.25, 1.6]) * rng.uniform(0.9, 1.1)))
    h = max(8, min(h, scene.h))
    img = np.zeros((h, w, 3), np.uint8)
    if kind == 'rect':
        img[:] = rng.integers(0, 255, 3)
        if rng.random() < 0.5 and lib.backgrounds:
            img = random_crop(rng, lib.backgrounds[rng.integers(len(lib.backgrounds))], w, h)
    elif kind == 'paper':
        img[:] = rng.integers(200, 255, 3)
        fake_text(img, rng, 5, 5, w - 5, h - 5, (40, 40, 40), int(rng.integers(2, 12)))
    else:
        img[:] = (245, 245, 245) if kind == 'label' else rng.integers(0, 255, 3)
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), rng.integers(0, 255, 3).tolist(), max(1, h // 15))
        fake_text(img, rng, 4, 4, int(w * 0.7), h - 4, (20, 20, 20), 3)
    M = card_homography(rng, w, h, rng.uniform(0, scene.w), rng.uniform(0, scene.h), h, rng.uniform(-0.4, 0.4), 0.02)
    scene.paste(img, np.full((h, w), 255, np.uint8), M)


OBJECTS = False
"""Set by train.py --objects: generated scenes also get irregular objects (`objects`). Off, every
scene is drawn exactly as before, so earlier runs stay reproducible."""

BAGS = False
"""Set by --bags (2026-12-06, sixty-sixth session): some held cards are in a loose plastic bag (`bag_parts`), wider than
the card, its edge wavy, its film crinkled with bright creases over the card too: the train photos' Lucario VSTAR and
Lechonk in bags on a playmat are the cards the verifier loses when they are large (docs/card-detector.md, "Large
photos"), and no source drew a bag. Off, every scene is drawn exactly as before."""
PLAYMATS = False
"""Set by --playmats (the same session): some backgrounds are a printed playmat, a card's artwork enlarged to fill the
scene (busy, saturated, foil-like), which the wallpapers and procedural tables do not show. Off, as before."""


def bag_parts(rng: np.random.Generator, face: np.ndarray, fmask: np.ndarray):
    """A loose plastic bag around the card: the canvas, its alpha (the card opaque, the film faint), the card's quad in
    it, and the creases' alpha (white, pasted over everything after)."""
    fh, fw = face.shape[:2]
    left, right = (int(fw * rng.uniform(0.04, 0.22)) for _ in range(2))
    top, bottom = int(fh * rng.uniform(0.05, 0.3)), int(fh * rng.uniform(0.03, 0.15))
    W, H = fw + left + right, fh + top + bottom
    # a wavy outline: the rectangle's sides through jittered points
    n = 9
    pts = []
    for k in range(4):
        for t in np.linspace(0, 1, n, endpoint=False):
            x, y = [(t * (W - 1), 0), (W - 1, t * (H - 1)), ((1 - t) * (W - 1), H - 1), (0, (1 - t) * (H - 1))][k]
            pts.append((x, y))
    pts = np.asarray(pts, np.float64) + rng.normal(0, 0.012 * min(W, H), (len(pts), 2))
    pts = np.clip(pts, 0, [W - 1, H - 1]).astype(np.int32)
    mask = np.zeros((H, W), np.uint8)
    cv2.fillPoly(mask, [pts], 255)
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = rng.integers(190, 256, 3)
    alpha = (mask.astype(np.float32) * rng.uniform(0.06, 0.3)).astype(np.uint8)
    e = max(1, int(fw * rng.uniform(0.003, 0.012)))
    cv2.polylines(alpha, [pts], True, int(rng.uniform(90, 200)), e)
    a = fmask.astype(np.float32)[..., None] / 255
    region = img[top:top + fh, left:left + fw].astype(np.float32)
    img[top:top + fh, left:left + fw] = (region * (1 - a) + face * a).astype(np.uint8)
    alpha[top:top + fh, left:left + fw] = np.maximum(alpha[top:top + fh, left:left + fw], fmask)
    # crinkles: smooth noise whose ridges catch the light, and a few sharp creases
    # broad sheens, stretched one way as a bag's folds run
    sx, sy = (rng.uniform(4, 20) * fw / 300 for _ in range(2))
    noise = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), sigmaX=sx, sigmaY=sy)
    noise /= noise.std() + 1e-6
    spec = np.clip((noise - rng.uniform(0.8, 1.6)) * rng.uniform(40, 120), 0, 210)
    for _ in range(int(rng.integers(1, 6))):
        p0 = rng.uniform([0, 0], [W, H])
        d = rng.normal(0, 1, 2)
        d = d / (np.linalg.norm(d) + 1e-6) * rng.uniform(0.2, 0.8) * max(W, H)
        q = np.stack([p0 + d * t + rng.normal(0, 0.02 * W, 2) for t in np.linspace(0, 1, 5)]).astype(np.int32)
        cv2.polylines(spec, [q], False, float(rng.uniform(120, 230)), max(1, int(rng.uniform(1, 4) * fw / 300)))
    spec = cv2.GaussianBlur(spec, (0, 0), 0.8) * (mask > 0)
    card_q = np.float64([[left, top], [left + fw, top], [left + fw, top + fh], [left, top + fh]])
    return img, alpha, card_q, spec.astype(np.uint8)


def playmat(rng: np.random.Generator, lib: Library, w: int, h: int) -> np.ndarray:
    """A printed playmat: a card face's artwork, enlarged to fill the scene, its colours a little stronger."""
    face = lib.faces[rng.integers(len(lib.faces))]
    fh, fw = face.shape[:2]
    art = face[int(fh * rng.uniform(0.08, 0.14)):int(fh * rng.uniform(0.45, 0.55)), int(fw * 0.08):int(fw * 0.92)]
    img = random_crop(rng, cv2.resize(art, (max(w, int(w * rng.uniform(1.0, 1.6))), max(h, int(h * rng.uniform(1.0, 1.6)))), interpolation=cv2.INTER_CUBIC), w, h)
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(1.0, 1.4), 0, 255)
    img = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 2.5))
    return img


def objects(scene: Scene, rng: np.random.Generator, lib: Library):
    """Irregular things behind and beside where the cards go: an animal, a plant, a bottle, a
    person. The first stage's card map ran from a card into the salient object behind it on photos
    of other scenes (docs/card-detector.md "Objects"); the distractors before were all rectangles.
    A blob of 2-5 ellipses and a polygon, filled with a photo crop, a design or a texture, mostly
    near the middle, where the card of a single-card scene sits."""
    for _ in range(int(rng.integers(1, 4))):
        s = min(scene.w, scene.h) * rng.uniform(0.25, 1.1)
        cx = scene.w / 2 + rng.normal(0, scene.w * 0.2)
        cy = scene.h / 2 + rng.normal(0, scene.h * 0.2)
        m = np.zeros((scene.h, scene.w), np.uint8)
        for _ in range(int(rng.integers(2, 6))):
            ex, ey = cx + rng.normal(0, s * 0.25), cy + rng.normal(0, s * 0.25)
            cv2.ellipse(m, (int(ex), int(ey)), (int(s * rng.uniform(0.1, 0.4)), int(s * rng.uniform(0.1, 0.4))), float(rng.uniform(0, 180)), 0, 360, 255, -1, cv2.LINE_AA)
        if rng.random() < 0.5:
            n = int(rng.integers(5, 10))
            ang = np.sort(rng.uniform(0, 2 * math.pi, n))
            rad = s * rng.uniform(0.2, 0.55, n)
            pts = np.stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)], 1).astype(np.int32)
            cv2.fillPoly(m, [pts], 255, cv2.LINE_AA)
        kind = rng.choice(['photo', 'design', 'texture'], p=[0.6, 0.15, 0.25])
        if kind == 'photo' and lib.backgrounds:
            fill = random_crop(rng, lib.backgrounds[rng.integers(len(lib.backgrounds))], scene.w, scene.h)
        elif kind == 'design':
            fill = cv2.resize(synthetic_face(rng, lib), (scene.w, scene.h))
        else:
            fill = procedural_background(rng, scene.w, scene.h)
        if rng.random() < 0.5:
            scene.img = scene.img * (1 - 0.35 * cv2.GaussianBlur(m, (0, 0), s * 0.05)[..., None] / 255.0)
        if rng.random() < 0.3:  # out of focus, as the card is not
            fill = cv2.GaussianBlur(fill, (0, 0), rng.uniform(1, 4))
        a = (m.astype(np.float32) / 255.0)[..., None]
        scene.img = scene.img * (1 - a) + fill.astype(np.float32) * a


def place_card(scene: Scene, rng: np.random.Generator, lib: Library, cx: float, cy: float, size: float, angle: float, tilt: float, holder: str):
    face, fmask = card_face(rng, lib)
    if rng.random() < 0.7:
        # lighting across the card: a gentle gradient
        g = np.linspace(rng.uniform(0.75, 1.05), rng.uniform(0.9, 1.15), face.shape[0], dtype=np.float32)[:, None, None]
        face = np.clip(face * g, 0, 255).astype(np.uint8)
    if holder == 'slab':
        img, alpha, card_q, label_q = slab_parts(rng, face, fmask)
        M = card_homography(rng, img.shape[1], img.shape[0], cx, cy, size, angle, tilt)
        if rng.random() < 0.6:
            scene.shade(alpha, M, rng.uniform(0.2, 0.5), size * 0.03, (int(size * 0.02), int(size * 0.02)))
        scene.paste(img, alpha, M)
        scene.cards.append(apply(M, card_q))
        scene.labels.append(apply(M, label_q))
        h, w = img.shape[:2]
        scene.holders.append(apply(M, [[0, 0], [w, 0], [w, h], [0, h]]))
        if rng.random() < 0.5:
            film(scene, M, w, h, rng, rng.uniform(0.02, 0.12))
    elif holder == 'holder' and BAGS and rng.random() < 0.4:
        img, alpha, card_q, spec = bag_parts(rng, face, fmask)
        M = card_homography(rng, img.shape[1], img.shape[0], cx, cy, size, angle, tilt)
        if rng.random() < 0.6:
            scene.shade(alpha, M, rng.uniform(0.15, 0.4), size * 0.02, (int(size * 0.015), int(size * 0.015)))
        scene.paste(img, alpha, M)
        scene.paste(np.full_like(img, 255), spec, M)
        h, w = img.shape[:2]
        scene.cards.append(apply(M, card_q))
        scene.holders.append(apply(M, [[0, 0], [w, 0], [w, h], [0, h]]))
    elif holder == 'holder':
        img, alpha, card_q = holder_parts(rng, face, fmask)
        M = card_homography(rng, img.shape[1], img.shape[0], cx, cy, size, angle, tilt)
        if rng.random() < 0.6:
            scene.shade(alpha, M, rng.uniform(0.2, 0.5), size * 0.02, (int(size * 0.015), int(size * 0.015)))
        scene.paste(img, alpha, M)
        h, w = img.shape[:2]
        scene.cards.append(apply(M, card_q))
        scene.holders.append(apply(M, [[0, 0], [w, 0], [w, h], [0, h]]))
        film(scene, M, w, h, rng, rng.uniform(0.0, 0.15))
    else:
        M = card_homography(rng, face.shape[1], face.shape[0], cx, cy, size, angle, tilt)
        if rng.random() < 0.6:
            scene.shade(fmask, M, rng.uniform(0.2, 0.6), size * rng.uniform(0.005, 0.03), (int(size * rng.uniform(-0.02, 0.03)), int(size * rng.uniform(-0.02, 0.03))))
        scene.paste(face, fmask, M)
        h, w = face.shape[:2]
        scene.cards.append(apply(M, [[0, 0], [w, 0], [w, h], [0, h]]))


def photo_effects(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    img = img.astype(np.float32)
    h, w = img.shape[:2]
    # uneven light
    gx = np.linspace(rng.uniform(0.6, 1.1), rng.uniform(0.8, 1.2), w, dtype=np.float32)[None, :, None]
    gy = np.linspace(rng.uniform(0.6, 1.1), rng.uniform(0.8, 1.2), h, dtype=np.float32)[:, None, None]
    # in place, in the same order as `img * gx * gy * k`: the same values, fewer arrays (scene drawing limits training)
    img *= gx
    img *= gy
    img *= rng.uniform(0.6, 1.2)
    img *= rng.uniform(0.85, 1.15, 3).astype(np.float32)  # colour cast
    np.clip(img, 0, 255, out=img)
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.5))
    elif rng.random() < 0.15:
        k = int(rng.integers(3, 8))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        kern = cv2.warpAffine(kern, M, (k, k))
        img = cv2.filter2D(img, -1, kern / max(1e-6, kern.sum()))
    img += rng.normal(0, rng.uniform(0, 6), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255, out=img).astype(np.uint8)
    if rng.random() < 0.8:
        ok, buf = cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def generate(rng: np.random.Generator, lib: Library, long: int = 384, slab: bool = False) -> Scene:
    """slab: a single card in a graded slab (the corner refiner's slab samples); the draws are
    otherwise the same, so a scene without it is the one it always was."""
    aspect = rng.choice([3 / 4, 4 / 3, 9 / 16, 16 / 9, 1.0, 2 / 3])
    w, h = (long, int(long / aspect)) if aspect >= 1 else (int(long * aspect), long)
    scene = Scene(w, h, playmat(rng, lib, w, h) if PLAYMATS and rng.random() < 0.25 else background(rng, lib, w, h))
    layout = rng.choice(['single', 'fill', 'multi', 'grid', 'listing', 'none'], p=[0.38, 0.12, 0.14, 0.08, 0.14, 0.14])
    layout = 'single' if slab else layout
    if OBJECTS and rng.random() < 0.6:
        objects(scene, rng, lib)
    for _ in range(int(rng.integers(0, 3))):
        distractor(scene, rng, lib)
    holder_of = (lambda: 'slab') if slab else (lambda: rng.choice(['raw', 'holder', 'slab'], p=[0.55, 0.25, 0.2]))
    small_tilt = lambda: rng.uniform(0, 0.04)
    if layout == 'single':
        hd = holder_of()
        size = min(w, h) * rng.uniform(0.35, 1.0) if hd != 'slab' else min(w, h) * rng.uniform(0.5, 1.05)
        angle = rng.normal(0, 0.12) + (math.pi / 2 if rng.random() < 0.1 else 0)
        place_card(scene, rng, lib, w / 2 + rng.normal(0, w * 0.08), h / 2 + rng.normal(0, h * 0.08), size * (1.3 if aspect > 1 and hd != 'slab' else 1) * min(1, aspect if aspect < 1 else 1 / aspect * 1.4), angle, small_tilt(), hd)
    elif layout == 'fill':
        hd = 'raw' if rng.random() < 0.7 else 'holder'
        place_card(scene, rng, lib, w / 2 + rng.normal(0, 4), h / 2 + rng.normal(0, 4), max(w, h) * rng.uniform(0.85, 1.02) if aspect < 1 else h * rng.uniform(0.85, 1.02), rng.normal(0, 0.03), rng.uniform(0, 0.015), hd)
    elif layout == 'listing':
        # a panel (the marketplace's frame) with a banner, and the card somewhere on it
        px0, py0 = int(w * rng.uniform(0, 0.15)), int(h * rng.uniform(0, 0.15))
        px1, py1 = w - int(w * rng.uniform(0, 0.15)), h - int(h * rng.uniform(0, 0.15))
        cv2.rectangle(scene.img, (px0, py0), (px1, py1), rng.integers(0, 255, 3).tolist(), -1)
        bh = int(h * rng.uniform(0.08, 0.18))
        by = py0 if rng.random() < 0.5 else py1 - bh
        cv2.rectangle(scene.img, (px0, by), (px1, by + bh), rng.integers(0, 255, 3).tolist(), -1)
        txt = scene.img.astype(np.uint8)
        fake_text(txt, rng, px0 + 8, by + 4, px1 - 8, by + bh - 4, tuple(int(x) for x in rng.integers(0, 255, 3)), 2)
        scene.img = txt.astype(np.float32)
        ph = py1 - py0 - bh
        size = ph * rng.uniform(0.5, 0.95)
        hd = holder_of()
        cy = (py0 + bh if by == py0 else py0) + ph / 2
        place_card(scene, rng, lib, rng.uniform(px0 + size * 0.4, max(px0 + size * 0.4 + 1, px1 - size * 0.4)), cy, size, rng.normal(0, 0.05), small_tilt() * 0.5, hd)
    elif layout == 'multi':
        n = int(rng.integers(2, 6))
        size = min(w, h) * rng.uniform(0.2, 0.5)
        tries = 0
        while len(scene.cards) < n and tries < 30:
            tries += 1
            cx, cy = rng.uniform(size * 0.4, w - size * 0.4), rng.uniform(size * 0.5, h - size * 0.5)
            if any(np.linalg.norm(q.mean(0) - [cx, cy]) < size * 0.8 for q in scene.cards):
                continue
            place_card(scene, rng, lib, cx, cy, size * rng.uniform(0.9, 1.1), rng.normal(0, 0.3), small_tilt(), rng.choice(['raw', 'holder'], p=[0.75, 0.25]))
    elif layout == 'grid':
        cols, rows = int(rng.integers(2, 4)), int(rng.integers(1, 4))
        gap = rng.uniform(0.01, 0.12)
        size = min(h / (rows * (1 + gap) + 0.2), w / (cols * 0.716 * (1 + gap) + 0.2))
        x0 = w / 2 - (cols - 1) / 2 * size * 0.716 * (1 + gap)
        y0 = h / 2 - (rows - 1) / 2 * size * (1 + gap)
        sleeve = rng.random() < 0.4
        for r in range(rows):
            for c in range(cols):
                place_card(scene, rng, lib, x0 + c * size * 0.716 * (1 + gap), y0 + r * size * (1 + gap), size * 0.95, rng.normal(0, 0.02), 0.004, 'holder' if sleeve else 'raw')
    for _ in range(int(rng.integers(0, 3))):
        if rng.random() < 0.5:
            glare(scene, rng)
    scene.img = photo_effects(scene.img, rng)
    return scene


# ---------------------------------------------------------------- targets

def letterbox(img: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
    """The network's input: the long side to SIZE, padded with black at right and bottom (the server does the same)."""
    h, w = img.shape[:2]
    k = SIZE / max(h, w)
    nw, nh = max(1, round(w * k)), max(1, round(h * k))
    out = np.zeros((SIZE, SIZE, 3), np.uint8)
    out[:nh, :nw] = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
    return out, (nw / w, nh / h)


def draw_targets(cards, holders, labels, k: tuple[float, float], ignore_boxes=(), real: bool = False):
    """Targets at OUT x OUT from quads in source pixels scaled by k (source -> SIZE, per axis).
    Coordinates are pixel-centre: source pixel i spans i-0.5 .. i+0.5."""
    s = np.array(k) * OUT / SIZE
    t = np.zeros((CHANNELS, OUT * 4, OUT * 4), np.float32)
    wgt = np.ones((CHANNELS, OUT, OUT), np.float32)
    up = 4 * s  # draw at 4x then average down: soft edges at the true sub-pixel position

    def poly(ch, q):
        p = np.round(((np.asarray(q) + 0.5) * up - 0.5) * 16).astype(np.int32)  # 4 fractional bits
        cv2.fillPoly(t[ch], [p], 1.0, lineType=cv2.LINE_8, shift=4)

    for q in cards:
        poly(0, q)
        c = np.asarray(q).mean(0)
        poly(1, c + (np.asarray(q) - c) * 0.5)
    for q in holders:
        poly(3, q)
    for q in labels:
        poly(4, q)
    # the mean of each 4 x 4 block: INTER_AREA at a whole factor is that mean, seven times faster than numpy's
    small = np.stack([cv2.resize(c, (OUT, OUT), interpolation=cv2.INTER_AREA) for c in t])
    # corners: Gaussians (sigma 1.2 output px) at each corner, max over cards
    yy, xx = np.mgrid[0:OUT, 0:OUT].astype(np.float32)
    heat = np.zeros((OUT, OUT), np.float32)
    for q in cards:
        for x, y in (np.asarray(q) + 0.5) * s - 0.5:
            heat = np.maximum(heat, np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * 1.2 ** 2)))
    small[2] = heat
    for x0, y0, x1, y1 in ignore_boxes:
        a, b = int(max(0, x0 * s[0] - 2)), int(max(0, y0 * s[1] - 2))
        c, d = int(min(OUT, x1 * s[0] + 3)), int(min(OUT, y1 * s[1] + 3))
        wgt[:, b:d, a:c] = 0
    if real:
        wgt[3:] = 0  # holders and labels are not labelled on the real photos
    return small, wgt


RESAMPLE = False
"""Set by train.py --resample: some photos are first shrunk to a small listing photo's size and
saved again as JPEG (`resampled`). Its draws come from a generator of their own, so without it
every sample is drawn exactly as before."""


def resampled(seed: int, img: np.ndarray, share: float, quads: list[list]) -> tuple[np.ndarray, list[list]]:
    """A listing photo's life: the long side shrunk to 240-480 px (area or bilinear), often saved
    again as JPEG, before the letterbox. The card map's corners came out weak on the train photos
    shrunk to 400 px, which the network had only seen taken down from 720 px or drawn at 384."""
    rng = np.random.default_rng((seed, 17))
    if not RESAMPLE or rng.random() >= share:
        return img, quads
    h, w = img.shape[:2]
    k = rng.uniform(240, 480) / max(h, w)
    if k >= 1:
        return img, quads
    nw, nh = max(1, round(w * k)), max(1, round(h * k))
    kx, ky = nw / w, nh / h
    img = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if rng.random() < 0.6 else cv2.INTER_LINEAR)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 92))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    # pixel-centre coordinates: source pixel i spans i-0.5 .. i+0.5
    scale = lambda q: (np.asarray(q, np.float64) + 0.5) * [kx, ky] - 0.5  # noqa: E731
    return img, [[scale(q) for q in group] for group in quads]


def generated_sample(seed: int, lib: Library):
    rng = np.random.default_rng(seed)
    scene = generate(rng, lib)
    im, (cards, holders, labels) = resampled(seed, scene.img, 0.35, [scene.cards, scene.holders, scene.labels])
    img, k = letterbox(im)
    t, wgt = draw_targets(cards, holders, labels, k)
    # outside the letterboxed photo nothing is learnt: the padding is always black
    return img, t, wgt


def _framed(rng: np.random.Generator, im: np.ndarray, quads: list, ignore: list):
    """The stronger framing of a real photo (`--real-aug strong`): cropped close around its
    cards, so that a card fills the frame and its edge meets the table near the photo's border
    (the first stage's misses on real close-ups), or turned by a small angle or a quarter turn.
    Every card stays whole; other photos keep the plain crop."""
    h, w = im.shape[:2]
    mode = rng.choice(['tight', 'turn', 'plain'], p=[0.35, 0.2, 0.45])
    if mode == 'tight' and quads:
        pts = np.concatenate(quads)
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        side = max(x1 - x0, y1 - y0)
        m = lambda: rng.uniform(0.01, 0.2) * side
        cx0, cy0 = int(max(0, x0 - m())), int(max(0, y0 - m()))
        cx1, cy1 = int(min(w, x1 + m() + 1)), int(min(h, y1 + m() + 1))
        im = np.ascontiguousarray(im[cy0:cy1, cx0:cx1])
        quads = [q - [cx0, cy0] for q in quads]
        ignore = [[b[0] - cx0, b[1] - cy0, b[2] - cx0, b[3] - cy0] for b in ignore]
        return im, quads, ignore, True
    if mode == 'turn':
        angle = float(rng.choice([90, -90])) if rng.random() < 0.3 else float(rng.uniform(-20, 20))
        M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        cos, sin = abs(M[0, 0]), abs(M[0, 1])
        nw, nh = int(h * sin + w * cos), int(h * cos + w * sin)
        M[0, 2] += nw / 2 - w / 2
        M[1, 2] += nh / 2 - h / 2
        im = cv2.warpAffine(im, M, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        tr = lambda q: np.asarray(q, np.float64) @ M[:, :2].T + M[:, 2]
        quads = [order_quad(tr(q)) for q in quads]
        boxes = []
        for b in ignore:
            c = tr([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]])
            boxes.append([*c.min(0), *c.max(0)])
        return im, quads, boxes, True
    return im, quads, ignore, False


def real_sample(seed: int, lib: Library, strong: bool = False):
    rng = np.random.default_rng(seed)
    im, cards = lib.real[rng.integers(len(lib.real))]
    quads, ignore = [], []
    for c in cards:
        poly = c.get('polygon')
        if poly and len(poly) == 4:
            quads.append(order_quad(np.array(poly)))
        else:
            ignore.append(c['box'])
    # augment: flips, a random crop that keeps most of the photo, photo effects
    h, w = im.shape[:2]
    if rng.random() < 0.5:
        im = im[:, ::-1]
        quads = [order_quad(np.c_[w - 1 - q[:, 0], q[:, 1]]) for q in quads]
        ignore = [[w - b[2], b[1], w - b[0], b[3]] for b in ignore]
    framed = False
    if strong:
        im, quads, ignore, framed = _framed(rng, im, quads, ignore)
    if not framed:
        cx0, cy0 = int(rng.uniform(0, 0.12) * w), int(rng.uniform(0, 0.12) * h)
        cx1, cy1 = w - int(rng.uniform(0, 0.12) * w), h - int(rng.uniform(0, 0.12) * h)
        im = np.ascontiguousarray(im[cy0:cy1, cx0:cx1])
        quads = [q - [cx0, cy0] for q in quads]
        ignore = [[b[0] - cx0, b[1] - cy0, b[2] - cx0, b[3] - cy0] for b in ignore]
    im = photo_effects(im, rng) if rng.random() < 0.6 else im
    boxes = [np.array([[b[0], b[1]], [b[2], b[3]]], np.float64) for b in ignore]
    im, (quads, boxes) = resampled(seed, im, 0.5, [quads, boxes])
    ignore = [[*b[0], *b[1]] for b in boxes]
    img, k = letterbox(im)
    t, wgt = draw_targets(quads, [], [], k, ignore, real=True)
    return img, t, wgt
