"""A training script that reads its data and writes its model with the OBS SDK (esdk-obs-python) itself, as many
ModelArts scripts do instead of declaring input/output channels: nearest-centroid classification in numpy.

Its OBS locations are hyperparameters (``--data_obs=obs://bucket/prefix/``: every CSV object under it, features...,
label per row; ``--model_obs=obs://bucket/prefix/``: model.npz and metrics.json go there). Credentials come from
the environment, as the OBS SDK's own samples read them (``AccessKeyID``, ``SecretAccessKey``, optional
``SecurityToken``), and the endpoint from ``OBS_ENDPOINT`` (default: cn-north-4's); a job passes them in its
``environments``. The client is built with the SDK's defaults, nothing else:

    AccessKeyID=.. SecretAccessKey=.. OBS_ENDPOINT=http://127.0.0.1:8781 \\
        python train.py --data_obs=obs://bucket/data/ --model_obs=obs://bucket/model/

Prints ``read N rows from K object(s)`` and ``accuracy=A`` (on the rows it read), exits 1 with the SDK's error code
when an OBS call fails.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from typing import Any

import numpy as np
from obs import ObsClient

DEFAULT_ENDPOINT = "https://obs.cn-north-4.myhuaweicloud.com"


def split_obs_url(url: str) -> tuple[str, str]:
    if not url.startswith("obs://"):
        raise SystemExit(f"not an obs:// URL: {url}")
    bucket, _, prefix = url[len("obs://"):].partition("/")
    return bucket, prefix


def checked(resp: Any, what: str) -> Any:
    if resp.status >= 300:
        print(f"OBS {what} failed: HTTP {resp.status} {resp.errorCode}: {resp.errorMessage}", flush=True)
        sys.exit(1)
    return resp


def read_rows(client: ObsClient, bucket: str, prefix: str) -> tuple[np.ndarray, int]:
    listed = checked(client.listObjects(bucket, prefix=prefix), f"list obs://{bucket}/{prefix}")
    keys = sorted(o.key for o in listed.body.contents if o.key.endswith(".csv"))
    blocks = []
    for key in keys:
        got = checked(client.getObject(bucket, key, loadStreamInMemory=True), f"get obs://{bucket}/{key}")
        blocks.append(np.loadtxt(io.BytesIO(got.body.buffer), delimiter=",", ndmin=2))
    if not blocks:
        print(f"no CSV object under obs://{bucket}/{prefix}", flush=True)
        sys.exit(1)
    return np.vstack(blocks), len(keys)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_obs", required=True)
    parser.add_argument("--model_obs", required=True)
    args, _ = parser.parse_known_args()  # ModelArts adds its own arguments

    client = ObsClient(access_key_id=os.getenv("AccessKeyID"), secret_access_key=os.getenv("SecretAccessKey"),
                       security_token=os.getenv("SecurityToken"), server=os.getenv("OBS_ENDPOINT", DEFAULT_ENDPOINT))
    try:
        rows, objects = read_rows(client, *split_obs_url(args.data_obs))
        print(f"read {len(rows)} rows from {objects} object(s)", flush=True)
        x, y = rows[:, :-1], rows[:, -1].astype(int)
        classes = np.unique(y)
        centroids = np.stack([x[y == c].mean(axis=0) for c in classes])
        predicted = classes[np.argmin(((x[:, None, :] - centroids[None]) ** 2).sum(axis=2), axis=1)]
        accuracy = float((predicted == y).mean())
        print(f"accuracy={accuracy:.6f}", flush=True)

        bucket, prefix = split_obs_url(args.model_obs)
        model = io.BytesIO()
        np.savez(model, classes=classes, centroids=centroids)
        checked(client.putContent(bucket, prefix + "model.npz", model.getvalue()), "put model.npz")
        metrics = json.dumps({"accuracy": accuracy, "rows": int(len(rows)), "objects": objects})
        checked(client.putContent(bucket, prefix + "metrics.json", metrics), "put metrics.json")
        print(f"model written to obs://{bucket}/{prefix}model.npz", flush=True)
    finally:
        client.close()


if __name__ == "__main__":
    main()
