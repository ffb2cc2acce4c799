"""Exports a training checkpoint to ONNX:
    python3 training/card-detector/export.py <checkpoint.pt> <out.onnx>              # the card detector
    python3 training/card-detector/export.py --corners <checkpoint.pt> <out.onnx>    # the corner refiner
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import train  # noqa: E402
import train_corners  # noqa: E402

if __name__ == '__main__':
    torch.set_num_threads(1)
    args = sys.argv[1:]
    corners = args[0] == '--corners'
    ckpt, out = args[1:] if corners else args
    model = train_corners.CornerNet() if corners else train.CardNet()
    model.load_state_dict(torch.load(ckpt)['model'])
    (train_corners.export if corners else train.export)(model, out)
