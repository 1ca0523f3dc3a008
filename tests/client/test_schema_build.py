"""A wire model's deferred schema is built once, under a lock, however many threads use it first at once
(client/models._built).

A provider makes up to 256 calls at once: a sweep's first create responses are parsed at the same moment.
In a fresh interpreter (nothing built yet), 64 threads parse a job and a list page at the same moment; pydantic's
schema builder is counted per model. Without the lock several threads build the same schema side by side.
"""

from __future__ import annotations

import json
import subprocess
import sys

from testkit.harness import REPO_ROOT

PROBE = """
import json, threading
from collections import Counter
from pydantic._internal import _model_construction as construction
from modelarts_provider.client import models

builds = Counter()
real = construction.complete_model_class

def counting(cls, *args, **kwargs):
    builds[cls.__name__] += 1
    return real(cls, *args, **kwargs)

construction.complete_model_class = counting
job = {"metadata": {"id": "j-1", "name": "a"}, "status": {"phase": "Running"}}
barrier = threading.Barrier(64)
wrong = []

def parse(i):
    barrier.wait()
    parsed = models.TrainingJob.model_validate(job) if i % 2 else models.TrainingJobList(items=[job]).jobs[0]
    if type(parsed) is not models.TrainingJob or parsed.id != "j-1":
        wrong.append(type(parsed).__name__)

threads = [threading.Thread(target=parse, args=(i,)) for i in range(64)]
[t.start() for t in threads]
[t.join() for t in threads]
print(json.dumps({"builds": builds, "wrong": wrong}))
"""


def test_concurrent_first_uses_build_each_schema_once() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout)
    assert seen["wrong"] == []
    assert seen["builds"].get("TrainingJob") == 1 and seen["builds"].get("TrainingJobList") == 1, seen["builds"]
