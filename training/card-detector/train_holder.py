"""The holder classifier: is this card in a sleeve, a top-loader or a slab, or bare?
(docs/card-detector.md "Sleeves and top-loaders")

The first stage's holder map learnt holders from generated scenes only (the real photos' labels
say nothing of holders), and on real photos it never fires: every card came back `raw`, though
half the hand-labelled train cards are in a penny sleeve, a top-loader or a binder pocket. A
holder shows around the card (a film edge a few millimetres out, a top-loader's rim) and on it
(the film's sheen and haze, glare lying across card and margin alike). This network looks at the
card's outline warped upright with a wider margin than the verifier's, VIEW_W x VIEW_H pixels, and
gives the probability that the card is held. The server samples the view the same way
(src/vision/cards/card-holder.ts):
  - the outline is turned so its left side is the longer (portrait);
  - view pixel (i, j) is the rectangle point ((-M + (i + 0.5) (1 + 2M) / VIEW_W) W,
    (-M + (j + 0.5) (1 + 2M) / VIEW_H) H), W x H the mean lengths of opposite sides, through the
    outline's homography; bilinear, black outside the photo.

Samples: the train split's cards with corners placed by eye and their kind (`raw`, `holder`,
`slab`; training/card-detector/train-corners.json), the dev fifth kept out; and generated scenes'
cards, held when a holder drawn around them contains them. Each outline is moved by 0.2-1.2 % of
its short side, as a refined outline is. Real photos are also shrunk (the listings' 310 x 430 px).
"""
from __future__ import annotations

import argparse
import json
import os

import cv2
import numpy as np
import torch

import corners
import scenes
from loop import SEED, add_common_args, batches, bce_step, probabilities, to_input, train, worker_rngs
from train_verifier import Exported, Verifier, card_view, jitter

VIEW_W, VIEW_H = 96, 128
MARGIN = 0.12


def holder_view(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    return card_view(img, quad, VIEW_W, VIEW_H, MARGIN)


def real_cards(labels: str, dev: bool) -> list[tuple[np.ndarray, list[tuple[np.ndarray, float]]]]:
    """Hand-labelled train-split photos (dev: the fifth kept out), each card's corners and whether it is held."""
    out = []
    for f in json.load(open(labels))['photos']:
        name = f['file'].removeprefix('real_card_photos/')
        if corners.in_dev(name) != dev:
            continue
        cards = [(scenes.order_quad(np.array(c['corners'], np.float64)), 0.0 if c.get('kind', 'raw') == 'raw' else 1.0) for c in f['cards'] if not c.get('hidden')]
        cards = [(q, y) for q, y in cards if min(corners.rect_of(q)) >= 24]
        if not cards:
            continue
        im = cv2.imread(os.path.join(scenes.DATASETS, f['file']), cv2.IMREAD_COLOR)
        if im is None:
            continue
        out.append((im, cards))
    return out


def inside(card: np.ndarray, holder: np.ndarray) -> bool:
    c = card.mean(0).astype(np.float32)
    return cv2.pointPolygonTest(holder.astype(np.float32), (float(c[0]), float(c[1])), False) >= 0


def scene_cards(rng: np.random.Generator, lib: scenes.Library, n: int):
    """Generated scenes' cards with whether each is held (a holder drawn around it)."""
    out = []
    while len(out) < n:
        s = scenes.generate(rng, lib, long=int(rng.integers(384, 801)))
        im = np.clip(s.img, 0, 255).astype(np.uint8)
        cards = [(q, 1.0 if any(inside(q, h) for h in s.holders) else 0.0) for q in s.cards if min(corners.rect_of(q)) >= 24]
        if cards:
            out.append((im, cards))
    return out


def sample(rng: np.random.Generator, real, generated, real_share: float) -> tuple[np.ndarray, float]:
    if rng.random() < real_share or not generated:
        im, cards = real[rng.integers(len(real))]
        q, y = cards[rng.integers(len(cards))]
        if rng.random() < 0.3:
            k = rng.uniform(0.35, 0.85)
            if min(corners.rect_of(q)) * k >= 24:
                im = cv2.resize(im, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
                q = (q + 0.5) * k - 0.5
        if rng.random() < 0.5:
            im = np.clip(scenes.photo_effects(im, rng), 0, 255).astype(np.uint8)
    else:
        im, cards = generated[rng.integers(len(generated))]
        q, y = cards[rng.integers(len(cards))]
    return holder_view(im, jitter(rng, q, rng.uniform(0.002, 0.012))), y


class Samples(torch.utils.data.IterableDataset):
    def __init__(self, backgrounds: str, labels: str, start: int, batch: int, real_share: float, scene_count: int):
        self.backgrounds, self.labels, self.start, self.batch, self.real_share, self.scene_count = backgrounds, labels, start, batch, real_share, scene_count

    def __iter__(self):
        lib = scenes.Library(self.backgrounds, real_faces=False)
        real = real_cards(self.labels, dev=False)
        generated = scene_cards(np.random.default_rng(SEED), lib, self.scene_count)
        for rng in worker_rngs(self.start):
            xs, ys = [], []
            for _ in range(self.batch):
                v, y = sample(rng, real, generated, self.real_share)
                if rng.random() < 0.5:
                    v = v[::-1, ::-1]  # a card upside down
                if rng.random() < 0.5:
                    v = v[:, ::-1]  # and mirrored: a holder has no handedness
                xs.append(to_input(np.ascontiguousarray(v)))
                ys.append(y)
            yield torch.stack(xs), torch.tensor(ys)


def dev_set(labels: str):
    """Every dev-fifth card once, its outline moved as in training (fixed seed), and the same shrunk to 0.5."""
    rng = np.random.default_rng(SEED + 7)
    xs, ys = [], []
    for im, cards in real_cards(labels, dev=True):
        small = cv2.resize(im, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        for q, y in cards:
            xs.append(to_input(np.ascontiguousarray(holder_view(im, jitter(rng, q, 0.006)))))
            ys.append(y)
            if min(corners.rect_of(q)) * 0.5 >= 24:
                xs.append(to_input(np.ascontiguousarray(holder_view(small, jitter(rng, (q + 0.5) * 0.5 - 0.5, 0.006)))))
                ys.append(y)
    return torch.stack(xs), torch.tensor(ys)


def export(model: torch.nn.Module, path: str):
    model.eval()
    torch.onnx.export(Exported(model), torch.zeros(1, 3, VIEW_H, VIEW_W), path, input_names=['views'], output_names=['held'], dynamic_axes={'views': {0: 'n'}, 'held': {0: 'n'}}, opset_version=17, dynamo=False)


def main():
    ap = argparse.ArgumentParser()
    add_common_args(ap, steps=1000, batch=48, out='runs/holder')
    ap.add_argument('--labels', required=True)
    ap.add_argument('--real-share', type=float, default=0.6)
    ap.add_argument('--scenes', type=int, default=400, help='generated scenes drawn once per data worker')
    args = ap.parse_args()
    dev = dev_set(args.labels)

    def data(step: int):
        return batches(Samples(args.backgrounds, args.labels, step + args.data_start, args.batch, args.real_share, args.scenes), args.workers)

    def report(model, step):
        if step % 200 and step != args.steps:
            return {}
        p, y = probabilities(model, dev[0]), dev[1]
        return {'dev_held_found': round(float((p[y == 1] > 0.5).float().mean()), 4), 'dev_raw_kept': round(float((p[y == 0] <= 0.5).float().mean()), 4), 'dev_n': [int((y == 1).sum()), int((y == 0).sum())]}

    train(args, Verifier, data, bce_step, export, 'card-holder.onnx', report, header={'view': [VIEW_W, VIEW_H], 'margin': MARGIN})


if __name__ == '__main__':
    main()
