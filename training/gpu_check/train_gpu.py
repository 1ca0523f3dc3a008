"""A small PyTorch training on the GPU the local ModelArts gave this task: prints the device and the throughput.

Used by the device check (`./dev gpu-check`, docs/local-execution.md); any PyTorch with CUDA runs it.
"""

from __future__ import annotations

import argparse
import os
import time

import torch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    args, _ = parser.parse_known_args()
    print(f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')!r} "
          f"MA_NUM_GPUS={os.environ.get('MA_NUM_GPUS')} cuda_devices={torch.cuda.device_count()}", flush=True)
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device visible to this task")
    device = torch.device("cuda", 0)
    a = torch.randn(4096, 4096, device=device)
    torch.cuda.synchronize()
    start, n = time.perf_counter(), 20
    for _ in range(n):
        a @ a
    torch.cuda.synchronize()
    tflops = n * 2 * 4096 ** 3 / (time.perf_counter() - start) / 1e12
    print(f"device={device} name={torch.cuda.get_device_name(0)} matmul_tflops={tflops:.1f}", flush=True)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8192, 256, device=device), torch.randint(0, 10, (8192,), device=device)
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        print(f"epoch {epoch}/{args.epochs} loss={loss.item():.4f}", flush=True)
    torch.cuda.synchronize()
    print(f"samples_per_s={args.epochs * len(x) / (time.perf_counter() - start):.0f}", flush=True)


if __name__ == "__main__":
    main()
