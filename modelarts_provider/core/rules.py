"""Rules that both the stack config and the resources' args apply, so both say the same thing."""

from __future__ import annotations

import re
from typing import Literal

from pydantic_core import PydanticCustomError

# OBS locations: either obs://bucket/key or the API's own /bucket/key form. Buckets are 3-63 chars.
OBS_URL_RE = re.compile(r"^(obs://|/)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^\s]*)?\Z")
# A path inside the training container (the create page: "When code_dir is prefixed with file://").
FILE_URL_RE = re.compile(r"^file:///[^\s]*\Z")

# The most trials (num_samples) and trials at once (max_concurrent) a search may ask for: a search bills every trial.
MAX_TRIALS = 1000
TRIAL_COUNT_KEYS = ("num_samples", "max_concurrent")  # the algorithm parameters that count trials

# How far `up` follows a job: submitted only, admitted, running, or finished.
WaitFor = Literal["none", "created", "running", "completed"]


def rule(field: str, message: str) -> PydanticCustomError:
    """A cross-field rule violation that names the field it is about (read back by core/failures.py)."""
    return PydanticCustomError("rule", message.replace("{", "(").replace("}", ")"), {"field": field})
