"""The card verifier: is this outline a card? (docs/card-detector.md "The verifier")

The first stage's maps and the corner refiner's doubt say where a card may be; on close-ups whose
card map runs into the table, the maps' corner evidence is faint, and the gates that keep false
cards out of leopard photos also drop those cards. The verifier looks at the candidate itself:
the outline warped upright with a margin around it, VIEW_W x VIEW_H pixels, and says card or
not. The server samples the view the same way (src/vision/cards/card-verifier.ts):
  - the outline is turned so its left side is the longer (portrait);
  - view pixel (i, j) is the rectangle point ((-M + (i + 0.5) (1 + 2M) / VIEW_W) W,
    (-M + (j + 0.5) (1 + 2M) / VIEW_H) H), W x H the mean lengths of opposite sides, through the
    outline's homography; bilinear, black outside the photo (as corners.py).

Positives: the train split's cards (corners placed by eye where there are some, the source's
four-point polygons elsewhere; the refiner's dev fifth kept out), and generated scenes' cards, each
outline moved by about 1 % of its short side as a refined outline is. Negatives: card-shaped
outlines anywhere on the training backgrounds, on the train split's photos away from their cards,
on the train split's photos of booster packs and deck boxes, on generated scenes away from their
cards; and outlines of real cards that are not the card's: the art box, the card with the table
around it, the card half off. A quarter of all samples, cards and not, are cut close around the
outline, so that an outline on the photo's frame (a cropped scan, or a small photo taken whole) is
decided by what it holds (v2, after v1 took 3.3 % of the Caltech photos whole for cards).
v3 adds both sides of that question outright: small photos with no card taken whole (their
outline the photo's frame, or a mat's inner edge, as the first stage's weak cards gave them),
and official card scans that fill their image.
"""
from __future__ import annotations

import argparse
import json
import math
import os

import cv2
import numpy as np
import torch
import torch.nn as nn

import corners
import scenes
from loop import SEED, add_common_args, batches, bce_step, cbr, probabilities, to_input, train, worker_rngs

VIEW_W, VIEW_H = 64, 88
MARGIN = 0.08
# share of samples cut close around their outline (framed)
FRAMED = 0.25
# v3: whole small photos (not cards) and whole scans (cards) as their own samples
WHOLE = True
# shapes of small photos taken whole: 3:2, 4:3, square, and close to a card's own
PHOTO_ASPECTS = (1.5, 4 / 3, 1.0, 88 / 63, 1.25)
# share of all samples that are small no-card photos taken whole, and of those the share in a mat
# (v3-v5: 0.12 and 0.3; v6 doubles the first after set C's false cards were shrunk and matted photos)
WHOLE_SHARE = 0.12
MAT_SHARE = 0.3
# --prefilter (tried 2026-11-28 as v7/v8, not shipped: docs/card-detector.md "Tried and not kept"): an
# outline whose short side is two view widths or more is looked at in the photo shrunk by block means
# (factor floor(short / VIEW_W)). Point samples of a large card alias, and v5/v6 swung from 0.3 to 0.97
# on one real 3000 x 4000 photo with its size. The server samples views without it (card-verifier.ts):
# a verifier trained with it needs the server's views shrunk the same way before it can ship.
PREFILTER = False
# --scale-aug (2026-12-06, sixty-sixth session): the share of views whose region is first enlarged 1.3-4x, as a phone's
# 12-MP photo shows a card 800-1500 px wide where the samples here are 150-700 px: the server's point samples of so
# large a card alias, and E refused a Lugia V held in a hand at every size from 750 px up (docs/card-detector.md).
# Cards and not-cards alike, so that softness or aliasing says nothing by itself.
SCALE_AUG = 0.0
SCALE_MAX_EDGE = 2400
# --bags, --playmats: the generated scenes' cards in loose bags and printed playmats behind them (scenes.BAGS, PLAYMATS)
BAGS = False
PLAYMATS = False


def upright(quad: np.ndarray) -> np.ndarray:
    q = scenes.order_quad(np.asarray(quad, np.float64))
    if np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3]) > np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1]):
        q = np.roll(q, -1, axis=0)
    return q


def view_grid(quad: np.ndarray, view_w: int = VIEW_W, view_h: int = VIEW_H, margin: float = MARGIN) -> np.ndarray:
    H, w, h = corners.homography(quad)
    u = (-margin + (np.arange(view_w) + 0.5) * (1 + 2 * margin) / view_w) * w
    v = (-margin + (np.arange(view_h) + 0.5) * (1 + 2 * margin) / view_h) * h
    uu, vv = np.meshgrid(u, v)
    P = np.stack([uu, vv, np.ones_like(uu)], -1) @ H.T
    return (P[..., :2] / P[..., 2:3]).astype(np.float32)


def card_view(img: np.ndarray, quad: np.ndarray, view_w: int = VIEW_W, view_h: int = VIEW_H, margin: float = MARGIN) -> np.ndarray:
    """The outline warped upright (portrait) with `margin` around it; the holder classifier's view is the same with its own size."""
    g = view_grid(upright(quad), view_w, view_h, margin)
    return cv2.remap(img, g[..., 0], g[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def block_means(img: np.ndarray, f: int) -> np.ndarray:
    """`img` shrunk by `f` both ways, each pixel the mean of an f x f block, rounded (src/vision/cards/card-verifier.ts `blockMeans`)."""
    h, w = img.shape[0] // f, img.shape[1] // f
    m = img[:h * f, :w * f].reshape(h, f, w, f, -1).mean((1, 3))
    return np.floor(m + 0.5).astype(np.uint8)


def verifier_view(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The verifier's view: `card_view`, of the photo shrunk by block means for a large outline when PREFILTER is on."""
    f = int(min(corners.rect_of(quad)) // VIEW_W) if PREFILTER else 1
    if f < 2:
        return card_view(img, quad)
    return card_view(block_means(img, f), (np.asarray(quad, np.float64) + 0.5) / f - 0.5)


class Verifier(nn.Module):
    def __init__(self, c=(16, 32, 48, 64, 96)):
        super().__init__()
        layers, cin = [], 3
        for co in c:
            layers += [cbr(cin, co, 2), cbr(co, co)]
            cin = co
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(cin, 1)

    def forward(self, x):
        return self.head(self.body(x).mean((2, 3)))[:, 0]


class Exported(nn.Module):
    """The probability, for the server."""

    def __init__(self, m: Verifier):
        super().__init__()
        self.m = m

    def forward(self, views):
        return torch.sigmoid(self.m(views))


class MeanOf(nn.Module):
    """Several verifiers as one: the mean of their probabilities (the shipped verifier since
    2026-11-25 is v5 and v6 so: each lets through no-card photos the other does not)."""

    def __init__(self, models: list[Verifier]):
        super().__init__()
        self.models = nn.ModuleList(models)

    def forward(self, views):
        return torch.stack([torch.sigmoid(m(views)) for m in self.models]).mean(0)


def export_mean(models: list[Verifier], path: str):
    for m in models:
        m.eval()
    torch.onnx.export(MeanOf(models), torch.zeros(1, 3, VIEW_H, VIEW_W), path, input_names=['views'], output_names=['card'], dynamic_axes={'views': {0: 'n'}, 'card': {0: 'n'}}, opset_version=17, dynamo=False)


def export(model: nn.Module, path: str):
    model.eval()
    torch.onnx.export(Exported(model), torch.zeros(1, 3, VIEW_H, VIEW_W), path, input_names=['views'], output_names=['card'], dynamic_axes={'views': {0: 'n'}, 'card': {0: 'n'}}, opset_version=17, dynamo=False)


def jitter(rng: np.random.Generator, quad: np.ndarray, amount: float) -> np.ndarray:
    w, h = corners.rect_of(quad)
    return np.asarray(quad, np.float64) + rng.normal(0, amount * min(w, h), (4, 2))


def random_quad(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A card-shaped outline (side ratio within 0.1 of 63:88, as the detector's shape rule keeps) anywhere in a w x h image."""
    size = min(w, h) * rng.uniform(0.15, 0.95)
    aspect = 63 / 88 + rng.uniform(-0.09, 0.09)
    M = scenes.card_homography(rng, 100, int(100 / aspect), rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h, size, rng.uniform(-math.pi, math.pi), rng.uniform(0, 0.04))
    return scenes.apply(M, [[0, 0], [100, 0], [100, int(100 / aspect)], [0, int(100 / aspect)]])


def overlaps(q: np.ndarray, cards: list[np.ndarray], limit: float = 0.2) -> bool:
    """Whether q covers a share over `limit` of any card (or a card covers that share of q)."""
    a = cv2.contourArea(q.astype(np.float32))
    for c in cards:
        inter, _ = cv2.intersectConvexConvex(q.astype(np.float32), c.astype(np.float32))
        if inter > limit * min(a, cv2.contourArea(c.astype(np.float32))):
            return True
    return False


def wrong_outline(rng: np.random.Generator, quad: np.ndarray) -> np.ndarray:
    """An outline of a real card that is not its outline: inside it (an art box, an inner frame), around it with the table, or half off it."""
    q = np.asarray(quad, np.float64)
    c = q.mean(0)
    kind = rng.integers(3)
    if kind == 0:
        # an art box sits high on the card
        s = rng.uniform(0.5, 0.82)
        shift = (q[0] + q[1] - q[2] - q[3]) / 4 * rng.uniform(0, 0.4)
        return (q - c) * s + c + shift
    if kind == 1:
        return (q - c) * rng.uniform(1.18, 1.7) + c
    w, h = corners.rect_of(q)
    d = rng.uniform(0.2, 0.6) * min(w, h)
    a = rng.uniform(0, 2 * math.pi)
    return q + [d * math.cos(a), d * math.sin(a)]


class Pool:
    """Everything the samples are cut from, loaded once per data worker."""

    def __init__(self, backgrounds: str, labels: str, scene_count: int, seed: int):
        lib = scenes.Library(backgrounds, real_faces=True, hand_labels=labels)
        self.backgrounds = lib.backgrounds
        self.real: list[tuple[np.ndarray, list[np.ndarray]]] = []
        self.dev: list[tuple[np.ndarray, list[np.ndarray]]] = []
        self.empty: list[np.ndarray] = []
        hand = {p['file'].removeprefix('real_card_photos/'): p for p in json.load(open(labels))['photos']} if labels else {}
        manifest = json.load(open(os.path.join(scenes.DATASETS, 'real_card_photos/manifest.json')))
        for f in manifest['files']:
            if f['split'] != 'train' or not f['file'].startswith('shrey'):
                continue
            im = cv2.imread(os.path.join(scenes.DATASETS, 'real_card_photos', f['file']), cv2.IMREAD_COLOR)
            if im is None:
                continue
            if not f['labels']['cards']:
                self.empty.append(im)
                continue
            if f['file'] in hand:
                quads = [scenes.order_quad(np.array(c['corners'], np.float64)) for c in hand[f['file']]['cards'] if not c.get('hidden')]
            else:
                quads = [scenes.order_quad(np.array(c['polygon'], np.float64)) for c in f['labels']['cards'] if c.get('polygon') and len(c['polygon']) == 4]
            # a card labelled with a box only is somewhere: no negatives may be cut near it
            boxes = [np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]], np.float64) for b in (c['box'] for c in f['labels']['cards'])]
            entry = (im, quads, boxes)
            (self.dev if corners.in_dev(f['file']) else self.real).append(entry)
        # official scans: a card that fills its image (cropped scans are sent to grading as they are)
        self.scans = [lib.faces[k] for k in range(lib.official)]
        rng = np.random.default_rng(seed)
        self.scenes = []
        for _ in range(scene_count):
            s = scenes.generate(rng, lib, long=int(rng.integers(384, 641)))
            self.scenes.append((np.clip(s.img, 0, 255).astype(np.uint8), s.cards, s.holders + s.labels))


def enlarged(rng: np.random.Generator, im: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The region around an outline enlarged 1.3-4x (at most SCALE_MAX_EDGE px on its long side), by one of three
    interpolations, sometimes with sensor noise at the new size: the outline as a large photo shows it."""
    h, w = im.shape[:2]
    size = max(corners.rect_of(quad))
    pad = 0.2 * size
    x0, y0 = np.floor(np.maximum(quad.min(0) - pad, 0)).astype(int)
    x1, y1 = np.ceil(np.minimum(quad.max(0) + pad, [w, h])).astype(int)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return im, quad
    k = min(rng.uniform(1.3, 4.0), SCALE_MAX_EDGE / max(x1 - x0, y1 - y0))
    if k < 1.05:
        return im, quad
    interp = (cv2.INTER_LINEAR, cv2.INTER_CUBIC, cv2.INTER_LANCZOS4)[rng.integers(3)]
    crop = im[y0:y1, x0:x1]
    big = cv2.resize(crop, (int(round(crop.shape[1] * k)), int(round(crop.shape[0] * k))), interpolation=interp)
    if rng.random() < 0.5:
        big = np.clip(big.astype(np.float32) + rng.normal(0, rng.uniform(1, 6), big.shape), 0, 255).astype(np.uint8)
    kx, ky = big.shape[1] / crop.shape[1], big.shape[0] / crop.shape[0]
    return big, (np.asarray(quad, np.float64) - [x0, y0] + 0.5) * [kx, ky] - 0.5


def framed(rng: np.random.Generator, im: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The view of an outline, a quarter of the time with the photo cut close around it: a
    scanned or cropped card fills its image, and so does a small photo taken whole for a card
    (a Caltech-like picture, its outline the photo's frame), so the frame itself must say nothing."""
    if SCALE_AUG and rng.random() < SCALE_AUG:
        im, quad = enlarged(rng, im, np.asarray(quad, np.float64))
    if rng.random() < FRAMED:
        h, w = im.shape[:2]
        size = max(corners.rect_of(quad))
        x0, y0 = quad.min(0) - rng.uniform(0, 0.03, 2) * size
        x1, y1 = quad.max(0) + rng.uniform(0, 0.03, 2) * size
        x0, y0 = max(0, int(x0)), max(0, int(y0))
        x1, y1 = min(w, int(math.ceil(x1))), min(h, int(math.ceil(y1)))
        if x1 - x0 > 8 and y1 - y0 > 8:
            return verifier_view(im[y0:y1, x0:x1], quad - [x0, y0])
    return verifier_view(im, quad)


def cardless_image(rng: np.random.Generator, pool: Pool, entries, cuts: tuple[float, float, float]):
    """An image to cut a sample with no card from, and the outlines it must stay clear of: a
    background, a shop photo with no card, a train photo (its cards) or a generated scene (its
    cards and holders), chosen by the cumulative shares `cuts`."""
    src = rng.random()
    if src < cuts[0]:
        return pool.backgrounds[rng.integers(len(pool.backgrounds))], []
    if src < cuts[1] and pool.empty:
        return pool.empty[rng.integers(len(pool.empty))], []
    if src < cuts[2] or not pool.scenes:
        im, quads, boxes = entries[rng.integers(len(entries))]
        return im, quads + boxes
    im, cards, holders = pool.scenes[rng.integers(len(pool.scenes))]
    return im, cards + holders


def whole_photo(rng: np.random.Generator, pool: Pool, entries) -> np.ndarray:
    """A small photo with no card, taken whole: its outline is the photo's frame (or, for a print
    with a mat, the mat's inner edge), moved a little inward as a fitted outline would be."""
    im, avoid = cardless_image(rng, pool, entries, (0.45, 0.6, 0.85))
    h, w = im.shape[:2]
    aspect = PHOTO_ASPECTS[rng.integers(len(PHOTO_ASPECTS))] * rng.uniform(0.97, 1.03)
    if rng.random() < 0.5:
        aspect = 1 / aspect
    crop = None
    for _ in range(20):
        cw = rng.uniform(0.25, 1.0) * w
        ch = cw / aspect
        if ch > h:
            ch = rng.uniform(0.25, 1.0) * h
            cw = ch * aspect
        x0, y0 = rng.uniform(0, w - cw), rng.uniform(0, h - ch)
        q = np.array([[x0, y0], [x0 + cw, y0], [x0 + cw, y0 + ch], [x0, y0 + ch]])
        if not overlaps(q, avoid, 0.05):
            crop = im[int(y0):int(y0 + ch), int(x0):int(x0 + cw)]
            break
    if crop is None or min(crop.shape[:2]) < 16:
        crop = pool.backgrounds[rng.integers(len(pool.backgrounds))]
    long = rng.uniform(160, 480)
    k = long / max(crop.shape[:2])
    crop = cv2.resize(crop, (max(8, int(crop.shape[1] * k)), max(8, int(crop.shape[0] * k))), interpolation=cv2.INTER_AREA)
    ch, cw = crop.shape[:2]
    inner = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64)
    if rng.random() < MAT_SHARE:
        # a print with a mat (white, black or a colour) around it
        m = int(max(2, rng.uniform(0.03, 0.14) * min(cw, ch)))
        colour = [255, 255, 255] if rng.random() < 0.5 else ([0, 0, 0] if rng.random() < 0.4 else rng.integers(0, 256, 3).tolist())
        crop = cv2.copyMakeBorder(crop, m, m, m, m, cv2.BORDER_CONSTANT, value=colour)
        inner = inner + m if rng.random() < 0.5 else np.array([[0, 0], [cw + 2 * m, 0], [cw + 2 * m, ch + 2 * m], [0, ch + 2 * m]], np.float64)
    img = scenes.photo_effects(crop, rng) if rng.random() < 0.6 else crop
    size = min(corners.rect_of(inner))
    quad = inner + (rng.uniform(0, 0.02, (4, 2)) * size) * np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]])
    return verifier_view(img, jitter(rng, quad, rng.uniform(0.0, 0.006)))


def whole_scan(rng: np.random.Generator, pool: Pool) -> np.ndarray:
    """An official scan that fills its image, at the sizes a client sends, with a little background at times."""
    face = pool.scans[rng.integers(len(pool.scans))]
    long = rng.uniform(200, 700)
    k = long / max(face.shape[:2])
    img = cv2.resize(face, (max(8, int(face.shape[1] * k)), max(8, int(face.shape[0] * k))), interpolation=cv2.INTER_AREA)
    h, w = img.shape[:2]
    if rng.random() < 0.4:
        m = int(rng.uniform(0, 0.04) * w)
        colour = [255, 255, 255] if rng.random() < 0.5 else rng.integers(0, 256, 3).tolist()
        img = cv2.copyMakeBorder(img, m, m, m, m, cv2.BORDER_CONSTANT, value=colour)
        quad = np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float64)
    else:
        quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    if rng.random() < 0.6:
        img = scenes.photo_effects(img, rng)
    return verifier_view(img, jitter(rng, quad, rng.uniform(0.002, 0.01)))


def sample(rng: np.random.Generator, pool: Pool, entries) -> tuple[np.ndarray, float]:
    r = rng.random()
    if WHOLE and r < 0.08 and pool.scans:
        return whole_scan(rng, pool), 1.0
    if WHOLE and r < 0.08 + WHOLE_SHARE:
        return whole_photo(rng, pool, entries), 0.0
    if WHOLE:
        r = rng.random()
    if r < 0.3:
        im, quads, _ = entries[rng.integers(len(entries))]
        if quads:
            q = quads[rng.integers(len(quads))]
            if rng.random() < 0.5:
                im = scenes.photo_effects(im, rng)
            return framed(rng, im, jitter(rng, q, rng.uniform(0.002, 0.012))), 1.0
    if r < 0.5 and pool.scenes:
        im, cards, _ = pool.scenes[rng.integers(len(pool.scenes))]
        if cards:
            return framed(rng, im, jitter(rng, cards[rng.integers(len(cards))], rng.uniform(0.002, 0.012))), 1.0
    if r < 0.62:
        im, quads, _ = entries[rng.integers(len(entries))]
        if quads:
            return framed(rng, im, wrong_outline(rng, quads[rng.integers(len(quads))])), 0.0
    # card-shaped outlines away from any card
    im, cards = cardless_image(rng, pool, entries, (0.35, 0.55, 0.8))
    for _ in range(20):
        q = random_quad(rng, im.shape[1], im.shape[0])
        if not overlaps(q, cards):
            return framed(rng, im, q), 0.0
    return framed(rng, pool.backgrounds[0], random_quad(rng, pool.backgrounds[0].shape[1], pool.backgrounds[0].shape[0])), 0.0


class Samples(torch.utils.data.IterableDataset):
    def __init__(self, backgrounds: str, labels: str, start: int, batch: int):
        self.backgrounds, self.labels, self.start, self.batch = backgrounds, labels, start, batch

    def __iter__(self):
        scenes.BAGS, scenes.PLAYMATS = BAGS, PLAYMATS
        pool = Pool(self.backgrounds, self.labels, 500, SEED)
        for rng in worker_rngs(self.start):
            xs, ys = [], []
            for _ in range(self.batch):
                v, y = sample(rng, pool, pool.real)
                if rng.random() < 0.5:
                    v = v[::-1, ::-1]  # a card upside down
                xs.append(to_input(np.ascontiguousarray(v)))
                ys.append(y)
            yield torch.stack(xs), torch.tensor(ys)


def dev_set(backgrounds: str, labels: str, n: int = 1200):
    """Views cut the same way from the dev fifth of the train split (never trained on)."""
    pool = Pool(backgrounds, labels, 0, SEED + 1)
    pool.scenes = []
    rng = np.random.default_rng(SEED + 7)
    xs, ys = [], []
    while len(xs) < n:
        v, y = sample(rng, pool, pool.dev)
        xs.append(to_input(np.ascontiguousarray(v)))
        ys.append(y)
    return torch.stack(xs), torch.tensor(ys)


def main():
    global WHOLE_SHARE, MAT_SHARE, PREFILTER, SCALE_AUG, BAGS, PLAYMATS
    ap = argparse.ArgumentParser()
    add_common_args(ap, steps=2500, batch=64, out='runs/verifier')
    ap.add_argument('--labels', default='')
    ap.add_argument('--whole-share', type=float, default=WHOLE_SHARE, help='share of samples that are small no-card photos taken whole')
    ap.add_argument('--mat-share', type=float, default=MAT_SHARE, help='share of those whole photos in a mat')
    ap.add_argument('--prefilter', action='store_true', help='large outlines seen in the photo shrunk by block means (tried as v7/v8; the server does not)')
    ap.add_argument('--scale-aug', type=float, default=SCALE_AUG, help='share of views whose region is enlarged 1.3-4x first (a large photo\'s card)')
    ap.add_argument('--bags', action='store_true', help='some held cards of the generated scenes in a loose plastic bag (scenes.BAGS)')
    ap.add_argument('--playmats', action='store_true', help='some generated backgrounds a printed playmat (scenes.PLAYMATS)')
    args = ap.parse_args()
    WHOLE_SHARE, MAT_SHARE, PREFILTER, SCALE_AUG, BAGS, PLAYMATS = args.whole_share, args.mat_share, args.prefilter, args.scale_aug, args.bags, args.playmats
    scenes.BAGS, scenes.PLAYMATS = BAGS, PLAYMATS
    dev = dev_set(args.backgrounds, args.labels)

    def data(step: int):
        return batches(Samples(args.backgrounds, args.labels, step + args.data_start, args.batch), args.workers)

    def report(model, step):
        if step % 250 and step != args.steps:
            return {}
        p, y = probabilities(model, dev[0]), dev[1]
        return {'dev_pos_kept': round(float((p[y == 1] > 0.5).float().mean()), 4), 'dev_neg_taken': round(float((p[y == 0] > 0.5).float().mean()), 4), 'dev_n': [int((y == 1).sum()), int((y == 0).sum())]}

    train(args, Verifier, data, bce_step, export, 'card-verifier.onnx', report, header={'view': [VIEW_W, VIEW_H], 'margin': MARGIN, 'prefilter': PREFILTER, 'scale_aug': SCALE_AUG, 'bags': BAGS, 'playmats': PLAYMATS})


if __name__ == '__main__':
    main()
