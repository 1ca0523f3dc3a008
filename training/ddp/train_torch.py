"""The same data-parallel training as train.py, with torch.distributed (for machines that have PyTorch).

``init_process_group(init_method="env://")`` reads ``MASTER_ADDR``, ``MASTER_PORT``, ``RANK`` and ``WORLD_SIZE``, which
the service (and the local ModelArts) give every node's process; the backend is NCCL when this task was given a GPU
(``CUDA_VISIBLE_DEVICES``), else gloo on the CPU. Gradients are averaged with ``all_reduce``, as DDP does.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import torch
import torch.distributed as dist

FEATURES = 4


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--train_url", default="")
    args, _ = parser.parse_known_args()
    cuda = torch.cuda.is_available()
    device = torch.device("cuda", 0) if cuda else torch.device("cpu")
    dist.init_process_group(backend="nccl" if cuda else "gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    print(f"rank {rank} of {world} on {device} ({torch.cuda.get_device_name(0) if cuda else 'cpu'}), "
          f"backend {dist.get_backend()}", flush=True)
    gen = torch.Generator().manual_seed(1000 + rank)
    x = torch.randn(256, FEATURES, generator=gen).to(device)
    y = x @ torch.tensor([1.5, -2.0, 0.5, 3.0], device=device) + 0.1 * torch.randn(256, generator=gen).to(device)
    w = torch.zeros(FEATURES, device=device)
    start = time.monotonic()
    for epoch in range(1, args.epochs + 1):
        local = 2 * x.T @ (x @ w - y) / len(y)
        grad = local.clone()
        dist.all_reduce(grad, op=dist.ReduceOp.SUM)
        grad /= world
        w -= args.lr * grad
        loss = float(torch.mean((x @ w - y) ** 2))
        print(f"epoch {epoch}/{args.epochs} rank={rank} local_grad={json.dumps(local.cpu().round(decimals=6).tolist())} "
              f"mean_grad={json.dumps(grad.cpu().round(decimals=6).tolist())} loss={loss:.6f}", flush=True)
    print(f"rank {rank} weights={json.dumps(w.cpu().round(decimals=6).tolist())} "
          f"({args.epochs / (time.monotonic() - start):.1f} steps/s)", flush=True)
    if args.train_url:
        Path(args.train_url).mkdir(parents=True, exist_ok=True)
        (Path(args.train_url) / f"weights-rank{rank}.json").write_text(json.dumps(w.cpu().tolist()))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
