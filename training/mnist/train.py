"""A tiny, dependency-free training job: logistic regression on generated two-class data.

Stands in for MNIST in the local stack (no download, no numpy): it trains for real, prints the loss
and accuracy per epoch, and writes the model to --train_url when given. ModelArts passes every
hyperparameter as --name=value, plus the input/output channels (--data_url, --train_url).

    python train.py --epochs=20 --lr=0.5 --train_url=/tmp/out
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random


def make_data(n: int, dims: int, seed: int) -> list[tuple[list[float], int]]:
    """Two Gaussian blobs, one per class, centred at -1 and +1 on every axis."""
    rng = random.Random(seed)
    data = []
    for i in range(n):
        label = i % 2
        centre = 1.0 if label else -1.0
        data.append(([rng.gauss(centre, 1.2) for _ in range(dims)], label))
    rng.shuffle(data)
    return data


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def train(data: list[tuple[list[float], int]], epochs: int, lr: float) -> tuple[list[float], float]:
    dims = len(data[0][0])
    w, b = [0.0] * dims, 0.0
    for epoch in range(1, epochs + 1):
        gw, gb, loss, correct = [0.0] * dims, 0.0, 0.0, 0
        for x, y in data:
            p = sigmoid(sum(wi * xi for wi, xi in zip(w, x)) + b)
            err = p - y
            for j, xj in enumerate(x):
                gw[j] += err * xj
            gb += err
            loss -= y * math.log(max(p, 1e-12)) + (1 - y) * math.log(max(1 - p, 1e-12))
            correct += (p >= 0.5) == bool(y)
        n = len(data)
        w = [wi - lr * g / n for wi, g in zip(w, gw)]
        b -= lr * gb / n
        print(f"epoch {epoch}/{epochs} loss {loss / n:.4f} accuracy {correct / n:.3f}", flush=True)
    return w, b


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.5)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--dims", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data_url", default=None)  # unused: the data is generated
    p.add_argument("--train_url", default=None)  # where the model goes
    args, _unknown = p.parse_known_args()  # ModelArts may add arguments of its own
    weights, bias = train(make_data(args.samples, args.dims, args.seed), args.epochs, args.lr)
    if args.train_url:
        os.makedirs(args.train_url, exist_ok=True)
        with open(os.path.join(args.train_url, "model.json"), "w") as f:
            json.dump({"weights": weights, "bias": bias}, f)
        print(f"model written to {args.train_url}/model.json")


if __name__ == "__main__":
    main()
