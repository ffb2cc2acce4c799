"""Exports a training checkpoint to ONNX:
    python3 training/card-detector/export.py <checkpoint.pt> <out.onnx>              # the card detector
    python3 training/card-detector/export.py --corners <checkpoint.pt> <out.onnx>    # the corner refiner
    python3 training/card-detector/export.py --verifier <checkpoint.pt> <out.onnx>   # the card verifier
    python3 training/card-detector/export.py --holder <checkpoint.pt> <out.onnx>     # the holder classifier
    python3 training/card-detector/export.py --verifier-mean <a.pt> <b.pt> ... <out.onnx>
                                      # several verifiers as one, the mean of their probabilities
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import train  # noqa: E402
import train_corners  # noqa: E402
import train_holder  # noqa: E402
import train_verifier  # noqa: E402

if __name__ == '__main__':
    torch.set_num_threads(1)
    args = sys.argv[1:]
    if args[0] == '--verifier-mean':
        models = []
        for ckpt in args[1:-1]:
            m = train_verifier.Verifier()
            m.load_state_dict(torch.load(ckpt)['model'])
            models.append(m)
        train_verifier.export_mean(models, args[-1])
        sys.exit(0)
    kind = args[0] if args[0] in ('--corners', '--verifier', '--holder') else None
    ckpt, out = args[1:] if kind else args
    module = {'--corners': train_corners, '--verifier': train_verifier, '--holder': train_holder, None: train}[kind]
    model = {'--corners': train_corners.CornerNet, '--verifier': train_verifier.Verifier, '--holder': train_verifier.Verifier, None: train.CardNet}[kind]()
    model.load_state_dict(torch.load(ckpt)['model'])
    module.export(model, out)
