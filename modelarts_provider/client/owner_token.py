"""The owner token a live job carries in its annotations: the one part of the owner mark the client reads
itself (an ambiguous create is resolved by name and this token, so a colleague's job of the same name is
never taken for ours). What the mark means and who writes it: core/ownership.py, which builds on this."""

from __future__ import annotations

from collections.abc import Mapping

PREFIX = "modelarts-pulumi/"
TOKEN_ANNOTATION = PREFIX + "token"
NETWORK_TOKEN_ANNOTATION = PREFIX + "network-token"  # a pool's: its network's token (core/owned_objects.py)
# A pool's or network's: a digest of the stack that made it (core/ownership.py), where a label holds no owner text.
STACK_ANNOTATION = PREFIX + "stack"
# The proof that this stack made the object (core/ownership.py): an HMAC bound to the object's kind and name.
MARK_ANNOTATION = PREFIX + "mark"
# The marks a pool or network also carries as labels, which the service returns where it may drop annotations.
LABEL_MARKS = (TOKEN_ANNOTATION, NETWORK_TOKEN_ANNOTATION, STACK_ANNOTATION, MARK_ANNOTATION)
# The mark as job tags (a tag key allows letters, digits, spaces and _ . : = + - @ only: '.' where annotations
# have '/'). Declared here, beside the annotations, so a reader of tags (`status`) need not import the ownership rules.
TAG_PREFIX = "modelarts-pulumi."
OWNER_TAG = TAG_PREFIX + "owner"
TOKEN_TAG = TAG_PREFIX + "token"
MARK_TAG = TAG_PREFIX + "mark"


def token_on(annotations: Mapping[str, str] | None) -> str | None:
    """The owner token a live job carries, if any."""
    return (annotations or {}).get(TOKEN_ANNOTATION)
