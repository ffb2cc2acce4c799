"""The training loop both networks share: AdamW with a one-cycle schedule, a fixed seed, a
checkpoint every 200 steps that a stopped run resumes from (seeing the same data), a JSON-lines
log every 25 steps, and an ONNX export at the end."""
from __future__ import annotations

import argparse
import copy
import json
import os
import time
from typing import Callable, Iterable

import numpy as np
import torch
import torch.nn as nn

SEED = 20261124


def cbr(cin: int, cout: int, stride: int = 1, bn: bool = True) -> nn.Sequential:
    """3x3 convolution, batch norm, ReLU: the block both networks are built of. Without `bn` the
    norm is folded into the convolution's bias, as in the exported ONNX file (`load_onnx_convs`)."""
    if not bn:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=True), nn.ReLU(inplace=True))
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def load_onnx_convs(model: nn.Module, path: str) -> None:
    """Copies an exported network's weights into `model` built without batch norm: the export
    folds each norm into its convolution, and its Conv nodes run in the order the model's
    convolutions are registered. For a second phase when the first phase's checkpoint is gone."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(path)
    init = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    nodes = [n for n in m.graph.node if n.op_type == 'Conv']
    convs = [c for c in model.modules() if isinstance(c, nn.Conv2d)]
    if len(nodes) != len(convs):
        raise SystemExit(f'{path}: {len(nodes)} convolutions, the model has {len(convs)}')
    with torch.no_grad():
        for node, conv in zip(nodes, convs):
            w, b = init[node.input[1]], init[node.input[2]]
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise SystemExit(f'{path}: {node.input[1]} is {w.shape}, the model wants {tuple(conv.weight.shape)}')
            conv.weight.copy_(torch.from_numpy(w))
            conv.bias.copy_(torch.from_numpy(b))


def to_input(img: np.ndarray) -> torch.Tensor:
    """BGR uint8 HxWx3 -> RGB float in [0, 1], CHW (the server feeds RGB)."""
    return torch.from_numpy(img[..., ::-1].copy()).permute(2, 0, 1).float().div(255)


def worker_rngs(start: int) -> Iterable[np.random.Generator]:
    """The random generators a data worker draws its samples with: seeds start + id, start + id +
    workers, ... (one worker, the default: start, start + 1, ...), so no two workers repeat a sample."""
    info = torch.utils.data.get_worker_info()
    wid, n = (info.id, info.num_workers) if info else (0, 1)
    seed = start + wid
    while True:
        yield np.random.default_rng(seed)
        seed += n


def bce_step(model: nn.Module, batch) -> torch.Tensor:
    """The loss of a card-or-not kind of network: binary cross-entropy on its logit."""
    x, y = batch
    return nn.functional.binary_cross_entropy_with_logits(model(x), y)


def probabilities(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """A binary network's probabilities on a dev set, in eval mode, back to training after."""
    model.eval()
    with torch.no_grad():
        p = torch.sigmoid(model(x))
    model.train()
    return p


def batches(dataset: torch.utils.data.IterableDataset, workers: int) -> Iterable:
    """The batches an iterable dataset yields whole, drawn by `workers` processes."""
    return (b for b in torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=workers))


def add_common_args(ap: argparse.ArgumentParser, steps: int, batch: int, out: str) -> None:
    ap.add_argument('--backgrounds', required=True)
    ap.add_argument('--steps', type=int, default=steps)
    ap.add_argument('--batch', type=int, default=batch)
    ap.add_argument('--lr', type=float, default=3e-3)
    ap.add_argument('--workers', type=int, default=1)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--device', default='cpu', help="cuda: train on the accelerator (the data is still drawn by CPU workers)")
    ap.add_argument('--max-seconds', type=float, default=0, help='stop, save and export after this long even before --steps (a lease that ends)')
    ap.add_argument('--out', default=out)
    ap.add_argument('--resume', action='store_true')
    ap.add_argument('--init', help='start from these weights (a checkpoint.pt) with a fresh optimiser and schedule: a second phase')
    ap.add_argument('--init-onnx', help='start from an exported ONNX file (batch norm folded in: the model is built without it)')
    ap.add_argument('--data-start', type=int, default=0, help='where the data starts: a second phase sees new samples')


def to_device(batch, device: str):
    if device == 'cpu':
        return batch
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    return type(batch)(to_device(b, device) for b in batch)


def save(model: nn.Module, opt, sched, step: int, ckpt: str) -> None:
    torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'sched': sched.state_dict(), 'step': step}, ckpt + '.tmp')
    os.replace(ckpt + '.tmp', ckpt)


def train(
    args: argparse.Namespace,
    make_model: Callable[[], nn.Module],
    data: Callable[[int], Iterable],
    step_loss: Callable[[nn.Module, object], torch.Tensor],
    export: Callable[[nn.Module, str], None],
    onnx_name: str,
    report: Callable[[nn.Module, int], dict] | None = None,
    header: dict | None = None,
) -> nn.Module:
    """`data(step)` gives the batches from a step on; `report(model, step)` adds figures to a log line."""
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    np.random.seed(SEED)
    model = make_model().to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.05)
    ckpt = os.path.join(args.out, 'checkpoint.pt')
    step = 0
    if args.resume and os.path.exists(ckpt):
        state = torch.load(ckpt, map_location=args.device)
        model.load_state_dict(state['model'])
        opt.load_state_dict(state['opt'])
        sched.load_state_dict(state['sched'])
        step = state['step']
    if args.init and not (args.resume and os.path.exists(ckpt)):
        model.load_state_dict(torch.load(args.init, map_location=args.device)['model'])
    if getattr(args, 'init_onnx', None) and not (args.resume and os.path.exists(ckpt)):
        load_onnx_convs(model, args.init_onnx)
        model.to(args.device)
    print(json.dumps({'params': sum(p.numel() for p in model.parameters()), 'start_step': step, **(header or {}), **vars(args)}), flush=True)
    log = open(os.path.join(args.out, 'train-log.jsonl'), 'a')
    t0 = time.time()
    run = 0.0
    model.train()
    for batch in data(step):
        if step >= args.steps or (args.max_seconds and time.time() - t0 > args.max_seconds):
            break
        batch = to_device(batch, args.device)
        loss = step_loss(model, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        run = loss.item() if step == 1 else 0.98 * run + 0.02 * loss.item()
        if step % 25 == 0 or step == args.steps:
            rec = {'step': step, 'loss': round(run, 5), 'lr': round(sched.get_last_lr()[0], 6), 'elapsed_s': round(time.time() - t0, 1)}
            if report:
                # the dev figures are computed on the CPU, whatever the device (a copy: a few milliseconds)
                rec.update(report(model if args.device == 'cpu' else copy.deepcopy(model).cpu(), step))
            print(json.dumps(rec), flush=True)
            log.write(json.dumps(rec) + '\n')
            log.flush()
        if step % 200 == 0 or step == args.steps:
            save(model, opt, sched, step, ckpt)
    if step % 200:
        save(model, opt, sched, step, ckpt)
    model.to('cpu')
    export(model, os.path.join(args.out, onnx_name))
    return model
