"""Exports a training checkpoint to ONNX: python3 training/card-detector/export.py <checkpoint.pt> <out.onnx>"""
import sys
import os

import torch

sys.path.insert(0, os.path.dirname(__file__))
from train import CardNet, export  # noqa: E402

if __name__ == '__main__':
    torch.set_num_threads(1)
    model = CardNet()
    model.load_state_dict(torch.load(sys.argv[1])['model'])
    export(model, sys.argv[2])
