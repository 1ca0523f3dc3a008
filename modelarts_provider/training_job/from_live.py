"""A live job -> the declaration that stands for it (the inputs `pulumi import` records and prints as code).

The reverse of `TrainingJobArgs.to_wire`: what the create request carried, read back from the job's
details along each field's declared path (args.py, core/fields.py). The service echoes defaults a declaration
never wrote (wire_forms.py leaves them out), so the generated declaration is the short one a person would write,
and it validates and diffs like one. The owner mark is not read back from annotations: the importing resource
records its own (ownership.py).
"""

from __future__ import annotations

from typing import Any

from ..client.models import TrainingJob
from ..core.fields import from_wire
from ..client.owner_token import TAG_PREFIX as OWNER_TAG_PREFIX
from .args import TrainingJobArgs


def declaration_of(job: TrainingJob) -> dict[str, Any]:
    """The TrainingJob inputs (python naming) that declare this live job: every sent field read back along its
    declared path (args.py; the shapes that are not a plain copy: wire_forms.py), and the tags where they were
    read (import reads them; they come from the tag API, not the job's details)."""
    out: dict[str, Any] = {"name": job.to_wire().get("metadata", {}).get("name") or job.name}
    out.update({k: v for k, v in from_wire(TrainingJobArgs, job.to_wire()).items() if k != "name"})
    tags = {k: v for k, v in (job.tags or {}).items() if not k.startswith(OWNER_TAG_PREFIX)}
    if tags:
        out["tags"] = tags
    return out
