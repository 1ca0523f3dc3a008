"""Which stack resource a training job belongs to: the mark written on it when it is created.

Like Helm 3's `meta.helm.sh/release-name`, every job this product creates carries its owner in its
`metadata.annotations`, in the create request itself (so a killed `up` cannot leave an unmarked job):

- `modelarts-pulumi/owner`: `<organization>/<project>/<stack>::<resource name>`, for people;
- `modelarts-pulumi/token`: a random token per resource (a pulumi-random RandomId the job depends on),
  so it is in the state before the job's POST, and it differs between two stacks of the same name on
  two backends (two teammates' `dev`), which the owner text alone cannot tell apart.

A job is this resource's only when it carries this resource's token and its owner text names this stack
(project and stack: a stack copied with `stack export`/`stack import` shares the seed, hence the tokens, of
the original, and must never take over or delete the original's jobs). That decides takeover (a lost create
response, a killed `up`), stopping and deleting; the name and the spec never do.
The service may leave `metadata.annotations` out of its responses (Terraform's huaweicloud_modelarts_training_job
documentation says it does), so the mark is written where the service keeps and returns it too:

- jobs: two tags (TMS, set right after the create; a tag key allows no '/', hence `modelarts-pulumi.token`);
- pools and networks: the token as a label (`metadata.labels`, returned: the service's own user-name label is), and
  a digest of the stack (`modelarts-pulumi/stack`, 16 hex characters of the SHA-256 of `project/stack`: a label
  value holds no `/`), so a copied stack is told apart where only the labels come back;
- a derived job name proves itself: it is an HMAC of the stack's secret seed (lifecycle.py uses it for a job
  created by a killed `up` before its tags were set).

`marks_from` reads them in this order, and the first carrier holding a token decides, whatever the others say:
the annotations (written in the create request itself, and never changed after), then the tags or labels
(written after the create, and editable by anyone allowed to tag). docs/assumptions.md says so.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The token annotation is the one part of the mark the client reads itself (an ambiguous create): declared there.
from ..client.owner_token import (LABEL_MARKS, NETWORK_TOKEN_ANNOTATION, PREFIX, STACK_ANNOTATION,  # noqa: F401
                                  TOKEN_ANNOTATION, token_on)  # re-exported: the client's part of the mark

OWNER_ANNOTATION = PREFIX + "owner"
TOKEN_RE = re.compile(r"[0-9a-f]{16,64}\Z")
# The marks a pool or network also carries as labels (hex tokens: valid label values; the owner text is not).
TAG_PREFIX = "modelarts-pulumi."  # a tag key allows letters, digits, spaces and _ . : = + - @ only
OWNER_TAG = TAG_PREFIX + "owner"
TOKEN_TAG = TAG_PREFIX + "token"
TAG_VALUE_RE = re.compile(r"[\w .:/=+\-@]{0,255}\Z")  # the SDK's TmsTag value rule
# tag key -> the annotation it stands for
_TAG_MARKS = {OWNER_TAG: OWNER_ANNOTATION, TOKEN_TAG: TOKEN_ANNOTATION}


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

    def object_marks(self) -> dict[str, str]:
        """The mark of a pool or network: the annotations and the stack's digest (copied to its labels)."""
        digest = stack_digest(self.stack)
        return {**self.annotations(), **({STACK_ANNOTATION: digest} if digest else {})}

    def tags(self) -> dict[str, str]:
        """The mark as job tags: the token always, the owner text where a tag value may hold it."""
        return {TOKEN_TAG: self.token, **({OWNER_TAG: self.label} if TAG_VALUE_RE.match(self.label) else {})}

    def labels(self) -> dict[str, str]:
        """The mark as a pool's or network's labels: the token (hex, a valid label value)."""
        return {TOKEN_ANNOTATION: self.token}


def marks_from(annotations: Mapping[str, str] | None, tags: Mapping[str, str] | None = None,
               labels: Mapping[str, str] | None = None) -> dict[str, str]:
    """The owner mark a live object carries, in the annotations' keys, from the first carrier holding a token:
    annotations, then tags, then labels (module docstring)."""
    if token_on(annotations):
        return dict(annotations or {})
    from_tags = {_TAG_MARKS[k]: v for k, v in (tags or {}).items() if k in _TAG_MARKS}
    if token_on(from_tags):
        return from_tags
    if token_on(labels):
        return {k: (labels or {})[k] for k in LABEL_MARKS if k in (labels or {})}
    return dict(annotations or {})


def owner_text(annotations: Mapping[str, str] | None) -> str:
    """Who a live job belongs to, for messages."""
    ann = annotations or {}
    if TOKEN_ANNOTATION not in ann:
        return "it carries no owner mark (not created by this stack tool, or before owners were recorded)"
    return f"it belongs to {ann.get(OWNER_ANNOTATION) or 'another resource'} (owner token {ann[TOKEN_ANNOTATION][:8]}...)"


def stack_of_label(label: str | None) -> str | None:
    """`project/stack` of an owner text (`<organization>/<project>/<stack>[::<resource>]`): the organization is
    left out, as the provider plugin does not know it (its marks say `organization`)."""
    if not label:
        return None
    stack = label.split("::", 1)[0]
    parts = stack.split("/")
    return "/".join(parts[-2:]) if len(parts) >= 2 else None


def stack_digest(stack: str | None) -> str | None:
    """The label-safe digest of a stack (`project/stack` of an owner text or a URN's stack)."""
    named = stack_of_label(stack)
    return hashlib.sha256(named.encode()).hexdigest()[:16] if named else None


def mark_stack(annotations: Mapping[str, str] | None) -> str | None:
    """`project/stack` named by a live job's owner text, if it carries one."""
    return stack_of_label((annotations or {}).get(OWNER_ANNOTATION))


def marked_for(annotations: Mapping[str, str] | None, token: str, stack: str | None) -> bool:
    """Whether a live job carries this owner token and its owner text names the stack `stack`
    (`organization/project/stack` or `project/stack`; None: the token alone decides, for callers that cannot
    know the stack). A mark with the token and no owner text (labels only) names its stack by digest, if it carries
    one; one without either counts by its token (a mark written before stacks were recorded)."""
    ann = annotations or {}
    if token_on(ann) != token:
        return False
    if stack is None:
        return True
    named = mark_stack(ann)
    if named is not None:
        return named == stack_of_label(stack)
    digest = ann.get(STACK_ANNOTATION)  # a pool's or network's labels: the stack's digest, no owner text
    return digest is None or digest == stack_digest(stack)
