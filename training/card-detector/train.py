"""Trains Loupe's card detector from scratch on CPU and exports it to ONNX.

    python3 training/card-detector/train.py --backgrounds <folder of photos> [--steps N] [--resume]

Reproducible: one fixed seed for the weights, and every training scene is drawn from its own
seed (step * batch + i), so a run can stop and resume from its checkpoint and see the same data.
Real photos come only from the train split of ../shared/datasets/real_card_photos.
"""
from __future__ import annotations

import argparse
import os
import sys

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import loop  # noqa: E402
from loop import cbr  # noqa: E402
import scenes  # noqa: E402


class CardNet(nn.Module):
    """A small U-Net: a 256x256 photo in, five maps at 128x128 out (logits). Plain 3x3
    convolutions: on a CPU they train several times faster than depthwise ones."""

    def __init__(self, c=(16, 24, 48, 64, 96), bn: bool = True):
        super().__init__()
        k = lambda cin, cout, stride=1: cbr(cin, cout, stride, bn)  # noqa: E731
        self.stem = k(3, c[0], 2)  # 128
        self.e1 = k(c[0], c[1], 2)  # 64
        self.e2 = nn.Sequential(k(c[1], c[2], 2), k(c[2], c[2]))  # 32
        self.e3 = nn.Sequential(k(c[2], c[3], 2), k(c[3], c[3]))  # 16
        self.e4 = nn.Sequential(k(c[3], c[4], 2), k(c[4], c[4]), k(c[4], c[4]))  # 8
        self.d3 = k(c[4] + c[3], c[3])
        self.d2 = k(c[3] + c[2], c[2])
        self.d1 = k(c[2] + c[1], c[1])
        self.d0 = k(c[1] + c[0], 16)
        self.head = nn.Conv2d(16, scenes.CHANNELS, 3, 1, 1)

    def forward(self, x):
        s = self.stem(x)
        a = self.e1(s)
        b = self.e2(a)
        c = self.e3(b)
        d = self.e4(c)
        up = lambda t, ref: F.interpolate(t, size=ref.shape[-2:], mode='bilinear', align_corners=False)
        y = self.d3(torch.cat([up(d, c), c], 1))
        y = self.d2(torch.cat([up(y, b), b], 1))
        y = self.d1(torch.cat([up(y, a), a], 1))
        y = self.d0(torch.cat([up(y, s), s], 1))
        return self.head(y)


class Scenes(torch.utils.data.IterableDataset):
    def __init__(self, backgrounds: str, start: int, batch: int, real_share: float, hand_labels: str = '', strong: bool = False, objects: bool = False, resample: bool = False, bags: bool = False, playmats: bool = False):
        self.backgrounds, self.start, self.batch, self.real_share, self.hand_labels, self.strong, self.objects = backgrounds, start, batch, real_share, hand_labels, strong, objects
        self.resample, self.bags, self.playmats = resample, bags, playmats

    def __iter__(self):
        scenes.OBJECTS = self.objects
        scenes.RESAMPLE = self.resample
        scenes.BAGS, scenes.PLAYMATS = self.bags, self.playmats
        cv2.setNumThreads(1)  # many data workers: one thread each
        lib = scenes.Library(self.backgrounds, hand_labels=self.hand_labels)
        info = torch.utils.data.get_worker_info()
        wid, n = (info.id, info.num_workers) if info else (0, 1)
        step = self.start + wid
        while True:
            for i in range(self.batch):
                seed = step * self.batch + i
                real = (seed * 2654435761 % 1000) / 1000 < self.real_share
                img, t, w = scenes.real_sample(seed, lib, self.strong) if real else scenes.generated_sample(seed, lib)
                # the photo as drawn (uint8 BGR): a quarter of the bytes through the workers' shared memory
                yield torch.from_numpy(np.ascontiguousarray(img)), torch.from_numpy(t), torch.from_numpy(w)
            step += n


def batch_input(x: torch.Tensor) -> torch.Tensor:
    """Drawn photos (N x H x W x 3, uint8 BGR) as the network takes them, exactly as `to_input` makes
    them one by one: RGB float in [0, 1], N x 3 x H x W; on the accelerator, converted there."""
    return x.flip(-1).permute(0, 3, 1, 2).float().div(255).contiguous()


def loss_fn(logits, target, weight):
    # corners: a penalty-reduced focal loss as in CornerNet (few positive pixels); the rest BCE.
    bce = F.binary_cross_entropy_with_logits(logits, target, reduction='none')
    w = weight.clone()
    w[:, 2] *= 1 + 20 * target[:, 2]
    w[:, 1] *= 2
    return (bce * w).sum() / w.sum().clamp(min=1)


def main():
    ap = argparse.ArgumentParser()
    loop.add_common_args(ap, steps=6000, batch=16, out=os.path.join(os.path.dirname(__file__), 'runs'))
    ap.add_argument('--real-share', type=float, default=0.3)
    ap.add_argument('--labels', default='', help="corners placed by eye (train-corners.json) to use instead of the source's polygons")
    ap.add_argument('--real-aug', choices=['plain', 'strong'], default='plain', help='strong: real photos also cropped close around their cards, or turned')
    ap.add_argument('--objects', action='store_true', help='generated scenes also get irregular objects behind and beside the cards (scenes.OBJECTS)')
    ap.add_argument('--resample', action='store_true', help='some photos shrunk to a listing photo\'s size and saved again as JPEG first (scenes.RESAMPLE)')
    ap.add_argument('--bags', action='store_true', help='some held cards in a loose plastic bag (scenes.BAGS)')
    ap.add_argument('--playmats', action='store_true', help='some backgrounds a printed playmat (scenes.PLAYMATS)')
    args = ap.parse_args()

    def data(step: int):
        scenes_ = Scenes(args.backgrounds, args.data_start + step, args.batch, args.real_share, args.labels, args.real_aug == 'strong', args.objects, args.resample, args.bags, args.playmats)
        return torch.utils.data.DataLoader(scenes_, batch_size=args.batch, num_workers=args.workers, prefetch_factor=4 if args.workers else None, pin_memory=args.device != 'cpu')

    loop.train(args, lambda: CardNet(bn=not args.init_onnx), data, lambda model, b: loss_fn(model(batch_input(b[0])), b[1], b[2]), export, 'card-detector.onnx')


def export(model: nn.Module, path: str):
    model.eval()
    x = torch.zeros(1, 3, scenes.SIZE, scenes.SIZE)

    class WithSigmoid(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return torch.sigmoid(self.m(x))

    torch.onnx.export(WithSigmoid(model), x, path, input_names=['image'], output_names=['maps'], opset_version=17, dynamo=False)
    print('exported', path, os.path.getsize(path), flush=True)


if __name__ == '__main__':
    main()
