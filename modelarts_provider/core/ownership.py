"""Which stack resource a training job belongs to: the mark written on it when it is created.

Like Helm 3's `meta.helm.sh/release-name`, every job this product creates carries its owner in its
`metadata.annotations`, in the create request itself (so a killed `up` cannot leave an unmarked job):

- `modelarts-pulumi/owner`: `<organization>/<project>/<stack>::<resource name>`, for people;
- `modelarts-pulumi/token`: a random token per resource (a pulumi-random RandomId the job depends on),
  so it is in the state before the job's POST, and it differs between two stacks of the same name on
  two backends (two teammates' `dev`), which the owner text alone cannot tell apart.

A job is this resource's only when it carries this resource's token. That decides takeover (a lost
create response, a killed `up`), stopping and deleting; the name and the spec never do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The token annotation is the one part of the mark the client reads itself (an ambiguous create): declared there.
from ..client.owner_token import PREFIX, TOKEN_ANNOTATION, token_on  # noqa: F401 - token_on re-exported

OWNER_ANNOTATION = PREFIX + "owner"
TOKEN_RE = re.compile(r"[0-9a-f]{16,64}\Z")


class OwnerMark(BaseModel):
    """This resource's mark: recorded in its state, written on the jobs it creates."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stack: str = Field(min_length=1, max_length=400, description="organization/project/stack")
    resource: str = Field(min_length=1, max_length=400, description="the resource's name in the stack")
    token: str = Field(description="random, per resource, hex")

    @field_validator("token")
    @classmethod
    def _token(cls, v: str) -> str:
        if not TOKEN_RE.match(v):
            raise ValueError("must be 16-64 lowercase hexadecimal characters (a pulumi-random RandomId's hex)")
        return v

    @property
    def label(self) -> str:
        return f"{self.stack}::{self.resource}"

    def annotations(self) -> dict[str, str]:
        return {OWNER_ANNOTATION: self.label, TOKEN_ANNOTATION: self.token}


def owner_text(annotations: Mapping[str, str] | None) -> str:
    """Who a live job belongs to, for messages."""
    ann = annotations or {}
    if TOKEN_ANNOTATION not in ann:
        return "it carries no owner mark (not created by this stack tool, or before owners were recorded)"
    return f"it belongs to {ann.get(OWNER_ANNOTATION) or 'another resource'} (owner token {ann[TOKEN_ANNOTATION][:8]}...)"
