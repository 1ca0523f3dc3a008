"""`modelarts:defaultTags`: tags of every TrainingJob of the stack, under each job's own (Terraform's provider
`default_tags`). A provider setting, so both front doors read it the same way: a YAML or TypeScript program sets it
once for all its jobs, as a Python stack's `modelarts-jobs:defaultTags` does for the jobs of its config.

    pulumi config set --path 'modelarts:defaultTags.costCenter' ml-42

The check merges them into the job's `tags` input (a job's own tag wins), so the state records the tags the service
holds and a changed default is a tag update in place, as a changed tag is. A bad default (TMS's rules, the owner
mark's prefix) fails every job's check in one line naming the setting, before any API call.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.unknowns import contains_unknown
from .args import check_tags

DEFAULT_TAGS_KEY = "defaultTags"


def parse_default_tags(raw: Any) -> dict[str, str]:
    """The setting's tags: the engine hands a map setting over as its JSON text (or as the map). ValueError names
    what is wrong, never a value that is not a tag."""
    if raw is None or raw == "":
        return {}
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            raise ValueError("must be a map of tag keys to values, e.g. {costCenter: ml-42}") from None
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ValueError("must be a map of tag keys to values, e.g. {costCenter: ml-42}")
    tags = {k: v if isinstance(v, str) else json.dumps(v) for k, v in value.items()}
    return check_tags(tags)


def with_default_tags(news: dict[str, Any], defaults: dict[str, str]) -> dict[str, Any]:
    """`news` with the defaults under its own `tags` (its own win); as it is without defaults, or while its tags
    are not known yet (a preview: the check runs again once they are)."""
    own = news.get("tags")
    if not defaults or contains_unknown(own) or (own is not None and not isinstance(own, dict)):
        return news
    return {**news, "tags": {**defaults, **(own or {})}}
