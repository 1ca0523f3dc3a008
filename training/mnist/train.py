"""A small real training job: softmax regression with mini-batch SGD, in numpy, in about a second.

The data: ten classes of 8x8 "images" (64 features) that numpy generates from a seed (a prototype per
class plus noise), so nothing is downloaded; or, when the input channel holds CSV files (features...,
label per row), those. ModelArts passes every hyperparameter as --name=value and every channel as
--<channel name>=<local dir>: --data_url (input, optional) and --train_url (output: the model goes there).

    python train.py --epochs=4 --lr=0.1 --batch_size=32 --train_url=/tmp/out

Prints one line per epoch, ``epoch k/E loss=L accuracy=A`` (held-out accuracy), then writes
model.npz and metrics.json to --train_url.
"""

from __future__ import annotations

import argparse
import glob
import json
import os

import numpy as np

CLASSES, FEATURES = 10, 64


def generated(samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Digits-like data: a fixed prototype per class (seed 0), noise from ``seed``."""
    prototypes = np.random.default_rng(0).uniform(0, 16, size=(CLASSES, FEATURES))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, CLASSES, size=samples)
    x = prototypes[y] + rng.normal(0, 14.0, size=(samples, FEATURES))
    return x, y


def from_csv(folder: str) -> tuple[np.ndarray, np.ndarray] | None:
    files = sorted(glob.glob(os.path.join(folder, "**", "*.csv"), recursive=True))
    if not files:
        return None
    rows = np.vstack([np.loadtxt(f, delimiter=",", ndmin=2) for f in files])
    print(f"read {len(rows)} rows from {len(files)} CSV file(s) in {folder}", flush=True)
    return rows[:, :-1], rows[:, -1].astype(int)


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def train(x: np.ndarray, y: np.ndarray, epochs: int, lr: float, batch: int, seed: int) -> dict:
    classes = int(y.max()) + 1
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-8
    x = (x - mean) / std
    split = int(len(x) * 0.8)
    xt, yt, xv, yv = x[:split], y[:split], x[split:], y[split:]
    rng = np.random.default_rng(seed)
    w, b = np.zeros((x.shape[1], classes)), np.zeros(classes)
    onehot = np.eye(classes)
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(xt))
        for start in range(0, len(xt), batch):
            idx = order[start:start + batch]
            grad = softmax(xt[idx] @ w + b) - onehot[yt[idx]]
            w -= lr * xt[idx].T @ grad / len(idx)
            b -= lr * grad.mean(axis=0)
        p = softmax(xv @ w + b)
        loss = float(-np.log(p[np.arange(len(yv)), yv] + 1e-12).mean())
        accuracy = float((p.argmax(axis=1) == yv).mean())
        print(f"epoch {epoch}/{epochs} loss={loss:.4f} accuracy={accuracy:.4f}", flush=True)
    return {"w": w, "b": b, "mean": mean, "std": std, "loss": loss, "accuracy": accuracy}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--samples", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data_url", default=None)   # input channel: CSV files, else generated data
    p.add_argument("--train_url", default=None)  # output channel: the model goes there
    args, unknown = p.parse_known_args()  # ModelArts may pass arguments of its own
    if unknown:
        print(f"ignoring arguments: {' '.join(unknown)}", flush=True)
    task = os.environ.get("MA_TASK_NAME", "local")
    print(f"task {task}: lr={args.lr} batch_size={args.batch_size} epochs={args.epochs}", flush=True)
    data = (from_csv(args.data_url) if args.data_url else None) or generated(args.samples, args.seed)
    model = train(*data, epochs=args.epochs, lr=args.lr, batch=args.batch_size, seed=args.seed)
    if args.train_url:
        os.makedirs(args.train_url, exist_ok=True)
        np.savez(os.path.join(args.train_url, "model.npz"),
                 **{k: model[k] for k in ("w", "b", "mean", "std")})
        with open(os.path.join(args.train_url, "metrics.json"), "w") as f:
            json.dump({"loss": model["loss"], "accuracy": model["accuracy"], "lr": args.lr,
                       "batch_size": args.batch_size, "epochs": args.epochs}, f)
        print(f"model written to {args.train_url}/model.npz", flush=True)


if __name__ == "__main__":
    main()
