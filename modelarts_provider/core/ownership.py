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

**The proof** (`modelarts-pulumi/mark`, as a job tag `modelarts-pulumi.mark`). The token and the owner text can be
copied: a colleague who copies our job's tags onto theirs, or a stack copied with `stack export`/`stack import`
under another name, carries them too. So a resource whose state records the stack's mark key
(core/identity.py: HMAC of the stack's secret seed) decides by the proof alone: HMAC(key, kind, the object's
name, project/stack of the stack acting now), written in the create request (annotations) and where the service
returns it (job tags, pool and network labels). A proof copied onto another object names the other object; a copy
of the stack acts under another name; a same-named stack elsewhere has another seed: none verifies. Any carrier
holding the expected proof proves it (a proof cannot be made by copying, so carriers cannot disagree to our harm).
A stack renamed with `pulumi stack rename` proves with the former names its config declares too (core/renames.py:
believed only while no stack of that name exists in the backend, so a copy never does).
A state without a key (written before the proof existed) is judged by the token and owner text as before, and
gets the key and the proof at its next `up` (proven once by that rule: `upgrade_proof`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The token annotation is the one part of the mark the client reads itself (an ambiguous create): declared there.
from ..client.owner_token import (LABEL_MARKS, MARK_ANNOTATION, MARK_TAG, OWNER_TAG, PREFIX, STACK_ANNOTATION,
                                  TOKEN_ANNOTATION, TOKEN_TAG, token_on)
from .call_urn import current_stack
from .renames import RENAMES
from .identity import SEED_INPUT, is_mark_key, is_seed, mark_key, proof_for, token_for
from .secret_leaves import plain, secret

OWNER_ANNOTATION = PREFIX + "owner"
TOKEN_RE = re.compile(r"[0-9a-f]{16,64}\Z")
# The marks a pool or network also carries as labels (hex tokens: valid label values; the owner text is not).
TAG_VALUE_RE = re.compile(r"[\w .:/=+\-@]{0,255}\Z")  # the SDK's TmsTag value rule
# The kinds whose returned carrier (labels) is written at create only: an object of theirs without any proof predates it.
LABELLED_ONCE = frozenset({"pool", "network"})
# tag key -> the annotation it stands for
_TAG_MARKS = {OWNER_TAG: OWNER_ANNOTATION, TOKEN_TAG: TOKEN_ANNOTATION}


class OwnerMark(BaseModel):
    """This resource's mark: recorded in its state, written on the jobs it creates."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stack: str = Field(min_length=1, max_length=400, description="organization/project/stack")
    resource: str = Field(min_length=1, max_length=400, description="the resource's name in the stack")
    token: str = Field(description="random, per resource, hex")
    key: str | None = Field(None, exclude_if=lambda v: v is None, description="the stack's mark key (a secret: core/identity.py), from which the "
                                              "proof an object carries is made and checked")

    @field_validator("key", mode="before")
    @classmethod
    def _unwrapped(cls, v: Any) -> Any:
        return plain(v)  # as the provider returned it, before the engine's round trip (tests call it so)

    @field_validator("key")
    @classmethod
    def _key(cls, v: str | None) -> str | None:
        if v is not None and not is_mark_key(v):
            raise ValueError("must be 64 lowercase hexadecimal characters (derived from the stack's seed)")
        return v

    @field_validator("token")
    @classmethod
    def _token(cls, v: str) -> str:
        if not TOKEN_RE.match(v):
            raise ValueError("must be 16-64 lowercase hexadecimal characters (a pulumi-random RandomId's hex)")
        return v

    @property
    def label(self) -> str:
        return f"{self.stack}::{self.resource}"

    def proof(self, kind: str, name: str, here: str | None = None) -> str | None:
        """The proof an object of `kind` named `name` made by this stack carries (None without a key). `here`: the
        stack acting now (default: the call's URN, else the one recorded)."""
        stack = stack_of_label(here or current_stack() or self.stack)
        return proof_for(self.key, kind, name, stack) if self.key and stack else None

    def annotations(self, kind: str = "job", name: str | None = None) -> dict[str, str]:
        proof = self.proof(kind, name) if name else None
        return {OWNER_ANNOTATION: self.label, TOKEN_ANNOTATION: self.token,
                **({MARK_ANNOTATION: proof} if proof else {})}

    def object_marks(self, kind: str, name: str | None) -> dict[str, str]:
        """The mark of a pool or network: the annotations and the stack's digest (copied to its labels)."""
        digest = stack_digest(self.stack)
        return {**self.annotations(kind, name), **({STACK_ANNOTATION: digest} if digest else {})}

    def tags(self, name: str | None = None) -> dict[str, str]:
        """The mark as job tags: the token and the proof, the owner text where a tag value may hold it."""
        proof = self.proof("job", name) if name else None
        return {TOKEN_TAG: self.token, **({OWNER_TAG: self.label} if TAG_VALUE_RE.match(self.label) else {}),
                **({MARK_TAG: proof} if proof else {})}

    def labels(self) -> dict[str, str]:
        """The mark as a pool's or network's labels: the token (hex, a valid label value)."""
        return {TOKEN_ANNOTATION: self.token}


def proves(owner: OwnerMark | None, kind: str, name: str | None, here: str | None,
           *carriers: Mapping[str, str] | None, any_resource: bool = False) -> bool:
    """THE ownership decision: whether a live object (`kind`, `name`, its annotations, tags and labels, in that
    order) is this resource's (`any_resource`: any resource's of this stack), for the stack `here` acting now
    (project/stack; None: the call's, else the one the mark records). With a mark key: one carrier holds the
    proof made for this object and this stack (module docstring), compared in constant time, and the token says
    which resource of the stack made it. Without a key (a state from before the proof): the token and the owner
    text, as they were."""
    if owner is None or not name:
        return False
    here = here or current_stack()
    # The stack acting, and the former names its config declares (a `pulumi stack rename`: core/renames.py).
    acting = (here, *RENAMES.stacks(stack_of_label(here) or stack_of_label(owner.stack)))
    marks = marks_from(*carriers[:3]) if carriers else {}
    if owner.key is None:
        return any(marked_for(marks, owner.token, stack or owner.stack) for stack in acting)
    expected = [p for stack in acting if (p := owner.proof(kind, name, stack)) is not None]
    found = [c.get(k) for c in carriers if c for k in (MARK_ANNOTATION, MARK_TAG) if c.get(k)]
    if not found and kind in LABELLED_ONCE:
        # A pool or network made before the proof existed: its labels are set at create only (a PATCH takes
        # annotations), so no later `up` can add it there; it is judged as it was, by this resource's token and
        # this stack's name (or digest), until it is replaced. One made since always carries a proof.
        return any(marked_for(marks, owner.token, stack or owner.stack) for stack in acting)
    proven = any(hmac.compare_digest(str(v), e) for v in found for e in expected)
    return proven and (any_resource or _tokens_on(carriers) == {owner.token})


def _tokens_on(carriers: tuple[Mapping[str, str] | None, ...]) -> set[str]:
    """The owner tokens the carriers hold (annotations, job tags, labels): one, when a single resource made it."""
    return {v for c in carriers if c for k in (TOKEN_ANNOTATION, TOKEN_TAG) if (v := c.get(k))}


def with_mark_key(owner: Any, olds: Mapping[str, Any] | None, seed: Any) -> Any:
    """The owner mark with the stack's mark key (core/identity.py): the recorded one when there is one (as the
    token: the objects already made carry proofs of it), else from the seed. A state written before the key
    existed gets it at the next check that has the seed (the upgrade)."""
    if not isinstance(owner, dict) or owner.get("key"):
        return owner
    recorded = (olds or {}).get("owner")
    recorded = recorded if isinstance(recorded, dict) else {}
    if recorded.get("key"):
        return {**owner, "key": plain(recorded["key"])}
    return {**owner, "key": mark_key(seed)} if is_seed(seed) else owner


def keyed(news: Mapping[str, Any], olds: Mapping[str, Any] | None) -> dict[str, Any]:
    """A pool's, network's or bucket's checked inputs: the seed taken out, the mark key put in the owner mark (and
    its token where none was given: the recorded one, else HMAC(seed, resource name))."""
    out = {k: v for k, v in news.items() if k != SEED_INPUT}
    owner, seed = out.get("owner"), news.get(SEED_INPUT)
    if isinstance(owner, dict):
        recorded = (olds or {}).get("owner")
        if not owner.get("token") and isinstance(recorded, dict) and recorded.get("token"):
            owner = {**owner, "token": recorded["token"]}
        elif not owner.get("token") and is_seed(seed) and isinstance(owner.get("resource"), str):
            owner = {**owner, "token": token_for(seed, owner["resource"])}
        out["owner"] = with_mark_key(owner, olds, seed)
    return out


def with_key_secret(props: dict[str, Any]) -> dict[str, Any]:
    """A provider's inputs or outputs with the owner mark's key a secret of its own (core/secret_leaves.py): the state
    keeps it encrypted, the rest of the mark (stack, resource, token) stays readable."""
    owner = props.get("owner")
    if not isinstance(owner, dict) or not isinstance(owner.get("key"), str):
        return props
    return {**props, "owner": {**owner, "key": secret(owner["key"])}}


def key_of(*props: Mapping[str, Any]) -> list[str]:
    """The mark keys in these props: what a call masks, should one ever reach a message."""
    return [o["key"] for p in props if isinstance(o := p.get("owner"), dict) and isinstance(o.get("key"), str)]


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
