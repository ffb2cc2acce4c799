"""Trains the corner refiner, the card detector's second stage, from scratch on CPU.

    python3 training/card-detector/train_corners.py --backgrounds <folder of photos> [--steps N] [--resume]

Each sample is one card's four corner patches (corners.py) around a rough outline: the true
outline moved, scaled, turned and with each corner off on its own, as the first stage gives it.
Half the cards are from the real photos' train split (less a fifth kept out as a dev split to
choose settings on), half from generated scenes (scenes.py) at a higher resolution than the
first stage's. The network says where the corner is in its patch: a soft arg-max over a 32 x 32
map, so the answer is sub-pixel and trained directly on the distance.
Reproducible: one fixed seed for the weights, and sample k is drawn from seed k.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import corners  # noqa: E402
import loop  # noqa: E402
from loop import cbr, to_input, worker_rngs  # noqa: E402
import scenes  # noqa: E402
GRID = corners.PATCH // 2


class CornerNet(nn.Module):
    """64 x 64 corner patch in, (u, v, spread) out: the corner in patch units (-1..1) and the
    soft arg-max's standard deviation (its doubt), from a small U-Net's 32 x 32 map."""

    def __init__(self, c=(16, 32, 48, 64), bn: bool = True):
        super().__init__()
        k = lambda cin, cout, stride=1: cbr(cin, cout, stride, bn)  # noqa: E731
        self.e0 = nn.Sequential(k(3, c[0]), k(c[0], c[0]))  # 64
        self.e1 = nn.Sequential(k(c[0], c[1], 2), k(c[1], c[1]))  # 32
        self.e2 = nn.Sequential(k(c[1], c[2], 2), k(c[2], c[2]))  # 16
        self.e3 = nn.Sequential(k(c[2], c[3], 2), k(c[3], c[3]), k(c[3], c[3]))  # 8
        self.d2 = k(c[3] + c[2], c[2])
        self.d1 = nn.Sequential(k(c[2] + c[1], c[1]), k(c[1], c[1]))
        self.head = nn.Conv2d(c[1], 1, 1)
        g = (torch.arange(GRID, dtype=torch.float32) + 0.5) * 2 / GRID - 1
        self.register_buffer('gx', g.view(1, 1, GRID).expand(1, GRID, GRID).reshape(1, -1).clone())
        self.register_buffer('gy', g.view(1, GRID, 1).expand(1, GRID, GRID).reshape(1, -1).clone())

    def logits(self, x):
        a = self.e0(x)
        b = self.e1(a)
        c = self.e2(b)
        d = self.e3(c)
        up = lambda t, ref: F.interpolate(t, size=ref.shape[-2:], mode='bilinear', align_corners=False)
        y = self.d2(torch.cat([up(d, c), c], 1))
        y = self.d1(torch.cat([up(y, b), b], 1))
        return self.head(y).flatten(1)  # N x GRID*GRID

    def forward(self, x):
        p = torch.softmax(self.logits(x), 1)
        u = (p * self.gx).sum(1)
        v = (p * self.gy).sum(1)
        spread = ((p * ((self.gx - u[:, None]) ** 2 + (self.gy - v[:, None]) ** 2)).sum(1) + 1e-8).sqrt()
        return torch.stack([u, v, spread], 1)


def real_cards(labels: str, dev: bool) -> list[tuple[str, np.ndarray, list[np.ndarray]]]:
    """Train-split photos (dev: the fifth kept out) with corners placed by eye on zoomed crops
    (the fixture format of test/fixtures/card-detector/real-corners.json). The source's own
    polygons are not used: they lie a pixel or two outside the card, on a sleeve's edge as often
    as not, which is the whole error this stage is for."""
    if not labels:
        return []
    out = []
    for f in json.load(open(labels))['photos']:
        name = f['file'].removeprefix('real_card_photos/')
        if not name.startswith('shrey') or corners.in_dev(name) != dev:
            continue
        quads = [scenes.order_quad(np.array(c['corners'])) for c in f['cards'] if not c.get('hidden')]
        quads = [q for q in quads if min(corners.rect_of(q)) >= 30]
        if not quads:
            continue
        im = cv2.imread(os.path.join(scenes.DATASETS, f['file']), cv2.IMREAD_COLOR)
        k = 1280 / max(im.shape[:2])
        if k < 1:
            im = cv2.resize(im, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
            quads = [(q + 0.5) * k - 0.5 for q in quads]
        out.append((f['file'], im, quads))
    return out


def card_sample(rng: np.random.Generator, im: np.ndarray, quad: np.ndarray, transpose: bool = False):
    """Four patches around a perturbed outline, and where the true corners are in them. Transposed,
    each patch is mirrored about its diagonal: still an upper-left corner, of a card turned a
    quarter and seen from behind, so the network cannot lean on where a card's print sits."""
    span = rng.uniform(0.06, 0.16)
    rough = corners.perturb(rng, quad, span)
    start = int(rng.integers(4))  # the server's upper-left is a guess for a card turned 45 degrees
    rough = np.roll(rough, -start, axis=0)
    truth = np.roll(np.asarray(quad, np.float64), -start, axis=0)
    xs, ts = [], []
    for k in range(4):
        x = to_input(corners.sample_patch(im, rough, k, span))
        t = torch.tensor(corners.to_patch(rough, k, span, truth[k]), dtype=torch.float32)
        if transpose:
            x, t = x.transpose(1, 2).contiguous(), t.flip(0)
        xs.append(x)
        ts.append(t)
    return torch.stack(xs), torch.stack(ts)


class Samples(torch.utils.data.IterableDataset):
    def __init__(self, backgrounds: str, start: int, real_share: float, labels: str, slab_share: float = 0.0, strong: bool = False):
        self.backgrounds, self.start, self.real_share, self.labels, self.slab_share, self.strong = backgrounds, start, real_share, labels, slab_share, strong

    def __iter__(self):
        cv2.setNumThreads(1)  # many data workers: one thread each (the same samples)
        lib = scenes.Library(self.backgrounds, real_faces=False)
        real = real_cards(self.labels, dev=False)
        for rng in worker_rngs(self.start):
            if real and rng.random() < self.real_share:
                _, im, quads = real[rng.integers(len(real))]
                quad = quads[rng.integers(len(quads))]
                if self.strong and rng.random() < 0.3:
                    # a smaller, softer photo of the same card (the listings' 310 x 430 px)
                    k = rng.uniform(0.3, 0.8)
                    if min(corners.rect_of(quad)) * k >= 30:
                        im = cv2.resize(im, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
                        quad = (quad + 0.5) * k - 0.5
                if rng.random() < 0.6:
                    im = scenes.photo_effects(im, rng)
                yield card_sample(rng, im, quad, self.strong and rng.random() < 0.5)
            else:
                # a scene takes ten times as long to draw as a card's patches: four samples from each
                # the real train split holds one slab: slabs come from drawn scenes (slab_share of them)
                slab = self.slab_share > 0 and rng.random() < self.slab_share
                scene = scenes.generate(rng, lib, long=int(rng.integers(384, 641)), slab=slab)
                qs = [q for q in scene.cards if min(corners.rect_of(q)) >= 30]
                if not qs:
                    continue
                im = np.clip(scene.img, 0, 255).astype(np.uint8)
                for j in rng.permutation(len(qs))[:2]:
                    for _ in range(2 if len(qs) > 1 else 4):
                        yield card_sample(rng, im, qs[j], self.strong and rng.random() < 0.5)


def loss_fn(model: CornerNet, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    logits = model.logits(x)
    p = torch.softmax(logits, 1)
    u = (p * model.gx).sum(1)
    v = (p * model.gy).sum(1)
    inside = (t.abs() < 0.97).all(1).float()
    tc = t.clamp(-0.97, 0.97)
    # the distance in patch pixels, and a light pull of the map towards a narrow Gaussian at the truth
    dist = F.smooth_l1_loss(torch.stack([u, v], 1) * (corners.PATCH / 2), tc * (corners.PATCH / 2), reduction='none', beta=0.5).sum(1)
    g = torch.exp(-((model.gx - tc[:, :1]) ** 2 + (model.gy - tc[:, 1:]) ** 2) / (2 * (1.5 * 2 / GRID) ** 2))
    g = g / g.sum(1, keepdim=True)
    ce = -(g * torch.log_softmax(logits, 1)).sum(1)
    # the Gaussian's cross-entropy forms the map quickly (a soft arg-max alone barely moves a flat map)
    return ((0.1 * dist + ce) * (0.3 + 0.7 * inside)).mean()


def refine(model: CornerNet, im: np.ndarray, rough: np.ndarray, spans=(0.14, 0.07)) -> np.ndarray:
    q = np.asarray(rough, np.float64)
    for span in spans:
        x = torch.stack([to_input(corners.sample_patch(im, q, k, span)) for k in range(4)])
        with torch.no_grad():
            out = model(x).numpy()
        q = np.stack([corners.from_patch(q, k, span, out[k, :2]) for k in range(4)])
    return q


def evaluate(model: CornerNet, dev, spans=(0.14, 0.07)) -> dict:
    """On the dev split, each card's outline perturbed as in training and refined: every corner's
    error as % of the card's short side, before and after."""
    model.eval()
    errs, before = [], []
    for i, (_, im, quads) in enumerate(dev):
        for j, q in enumerate(quads):
            rng = np.random.default_rng(1000 * i + j)
            rough = corners.perturb(rng, q, spans[0])
            out = refine(model, im, rough, spans)
            w = min(corners.rect_of(q))
            errs += list(100 * np.linalg.norm(out - q, axis=1) / w)
            before += list(100 * np.linalg.norm(rough - q, axis=1) / w)
    model.train()
    e = np.array(errs)
    return {'dev_cards': len(e) // 4, 'before_p50': round(float(np.median(before)), 2), 'p50': round(float(np.median(e)), 3), 'le1': round(float((e <= 1).mean()), 3), 'le2': round(float((e <= 2).mean()), 3)}


def main():
    ap = argparse.ArgumentParser()
    loop.add_common_args(ap, steps=3000, batch=16, out=os.path.join(os.path.dirname(__file__), 'runs-corners'))
    ap.add_argument('--real-share', type=float, default=0.5)
    ap.add_argument('--labels', default='', help='corners placed by eye on train-split photos (without them: generated scenes only)')
    ap.add_argument('--slab-share', type=float, default=0.0, help='share of generated scenes drawn as a single card in a graded slab')
    ap.add_argument('--real-aug', choices=['plain', 'strong'], default='plain', help='strong: real photos also shrunk (30 %), and half the samples transposed')
    ap.add_argument('--dev-every', type=int, default=200, help='dev figures every this many steps (they take seconds: fewer on the accelerator)')
    ap.add_argument('--width', type=int, default=1, help='channels times this (1: the shipped network; the server reads any width)')
    args = ap.parse_args()
    dev = real_cards(args.labels, dev=True)

    def data(step: int):
        samples = Samples(args.backgrounds, args.data_start + step * args.batch, args.real_share, args.labels, args.slab_share, args.real_aug == 'strong')
        return torch.utils.data.DataLoader(samples, batch_size=args.batch, num_workers=args.workers, prefetch_factor=4 if args.workers else None)

    def report(model: CornerNet, step: int) -> dict:
        return evaluate(model, dev) if dev and (step % args.dev_every == 0 or step == args.steps) else {}

    loop.train(args, lambda: CornerNet(tuple(args.width * c for c in (16, 32, 48, 64)), bn=not args.init_onnx), data, lambda model, b: loss_fn(model, b[0].flatten(0, 1), b[1].flatten(0, 1)), export, 'card-corners.onnx', report, {'dev_photos': len(dev)})


def export(model: nn.Module, path: str):
    model.eval()
    x = torch.zeros(4, 3, corners.PATCH, corners.PATCH)
    torch.onnx.export(model, x, path, input_names=['patches'], output_names=['corners'], dynamic_axes={'patches': {0: 'n'}, 'corners': {0: 'n'}}, opset_version=17, dynamo=False)
    print('exported', path, os.path.getsize(path), flush=True)


if __name__ == '__main__':
    main()
