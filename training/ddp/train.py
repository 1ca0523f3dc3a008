"""Data-parallel training across the nodes of a ModelArts job, with plain sockets and numpy.

Each node's process reads only what the service (and the local ModelArts) gives it: ``MASTER_ADDR`` and
``MASTER_PORT`` (the rendezvous on the first node), ``RANK`` and ``WORLD_SIZE``. Every rank fits a linear model on
its own shard of the data; after each step the ranks' gradients are averaged (an all-reduce through rank 0) and
every rank applies the same average, so the weights stay identical everywhere, as with PyTorch's
DistributedDataParallel. ``train_torch.py`` is the same training with ``torch.distributed``.

    python train.py --epochs 5 --lr 0.1 --train_url /tmp/out     # one process: WORLD_SIZE=1
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import struct
import time
from pathlib import Path

import numpy as np

FEATURES = 4
TRUE_W = np.array([1.5, -2.0, 0.5, 3.0])


def shard(rank: int, n: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """This rank's data: its own seed, so the ranks' gradients differ and the average matters."""
    rng = np.random.default_rng(1000 + rank)
    x = rng.normal(size=(n, FEATURES))
    return x, x @ TRUE_W + rng.normal(scale=0.1, size=n)


def _send(sock: socket.socket, values: np.ndarray) -> None:
    data = values.astype("<f8").tobytes()
    sock.sendall(struct.pack("<I", len(data)) + data)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("a peer closed the connection (did another rank fail?)")
        buf += chunk
    return buf


def _recv(sock: socket.socket) -> np.ndarray:
    (size,) = struct.unpack("<I", _recv_exact(sock, 4))
    return np.frombuffer(_recv_exact(sock, size), dtype="<f8").copy()


class AllReduce:
    """Mean of a vector over all ranks: every rank sends to rank 0, which averages and sends the mean back."""

    def __init__(self, rank: int, world: int, addr: str, port: int, timeout: float = 120.0) -> None:
        self.rank, self.world, self.peers = rank, world, []
        if world == 1:
            return
        if rank == 0:
            server = socket.create_server((addr, port))
            server.settimeout(timeout)
            for _ in range(world - 1):
                conn, _ = server.accept()
                conn.settimeout(timeout)
                self.peers.append(conn)
            server.close()
        else:
            deadline = time.monotonic() + timeout
            while True:  # rank 0 may not listen yet
                try:
                    self.master = socket.create_connection((addr, port), timeout=timeout)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)

    def mean(self, values: np.ndarray) -> np.ndarray:
        if self.world == 1:
            return values
        if self.rank == 0:
            total = values.copy()
            for peer in self.peers:
                total += _recv(peer)
            mean = total / self.world
            for peer in self.peers:
                _send(peer, mean)
            return mean
        _send(self.master, values)
        return _recv(self.master)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--fail_rank", type=int, default=-1, help="this rank exits with an error (a test)")
    parser.add_argument("--train_url", default="")
    args, _ = parser.parse_known_args()
    rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    addr, port = os.environ.get("MASTER_ADDR", "127.0.0.1"), int(os.environ.get("MASTER_PORT", "0") or 0)
    print(f"rank {rank} of {world}, rendezvous {addr}:{port}", flush=True)
    if rank == args.fail_rank:
        raise SystemExit(f"rank {rank}: failing on purpose (--fail_rank)")
    reduce = AllReduce(rank, world, addr, port)
    x, y = shard(rank)
    w = np.zeros(FEATURES)
    for epoch in range(1, args.epochs + 1):
        local = 2 * x.T @ (x @ w - y) / len(y)
        grad = reduce.mean(local)
        w -= args.lr * grad
        loss = float(np.mean((x @ w - y) ** 2))
        print(f"epoch {epoch}/{args.epochs} rank={rank} local_grad={json.dumps(local.round(6).tolist())} "
              f"mean_grad={json.dumps(grad.round(6).tolist())} loss={loss:.6f}", flush=True)
    print(f"rank {rank} weights={json.dumps(w.round(6).tolist())}", flush=True)
    if args.train_url:
        out = Path(args.train_url)
        out.mkdir(parents=True, exist_ok=True)
        (out / f"weights-rank{rank}.json").write_text(json.dumps(w.tolist()))


if __name__ == "__main__":
    main()
