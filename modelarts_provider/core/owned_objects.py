"""What the Network and ResourcePool providers share about objects the service names itself (`metadata.name`)
and the user names by label (`metadata.user_name`): the ownership rules of ownership.py.

- create: an object of the declared name is taken over only when it carries this resource's owner token (our
  earlier create) in a mark that names this stack; any other of that name stops the `up`, naming its owner;
- delete (and a pool's change in place): only an object carrying this resource's token, in a mark that names this
  stack, is deleted (changed), then waited for until the service no longer has it.
  "This stack" is the one the call's URN names (call_urn.py), else the resource's recorded mark: a copied stack
  (`stack export`, URNs renamed, `stack import`) shares the original's seed and tokens, and its calls name the
  copy, so it never takes over, changes or deletes the original's pools and networks (issue 43);
- a pool records the token of the network it was created on (`modelarts-pulumi/network-token`, copied from
  the network the service holds): a pool on our network that carries our network's token was made by this
  stack, so a network's delete (or replacement) removes such pools first, even one no state holds any more
  (a killed `up` during the pool's node wait): `destroy` never stops on "network in use" leaving a pool
  billing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from .call_urn import current_stack
from ..client.owner_token import NETWORK_TOKEN_ANNOTATION
from .ownership import OwnerMark, marks_from, owner_text, proves, token_on
from .renames import RENAMED_HINT
from .output_lines import say
from .provider_error import ProviderError
from ..wait_engine import REAL, Clock, Failed, wait
from ..wait_engine.cancel import cancelled
from ..wait_engine.conditions import gone


def marks_of(o: NamedObject) -> dict[str, str]:
    """The owner mark a pool or network carries: its annotations, else its labels (the service may answer
    without annotations; ownership.py)."""
    return marks_from(o.metadata.annotations, labels=o.metadata.labels)


class _Metadata(Protocol):
    user_name: str | None
    annotations: Mapping[str, str] | None
    labels: Mapping[str, str] | None


class NamedObject(Protocol):
    name: str
    metadata: Any  # _Metadata


T = TypeVar("T", bound=NamedObject)


def our_namesake(kind: str, name: str, listed: Iterable[T], owner: OwnerMark | None) -> T | None:
    """The object of the user's `name` this resource created earlier, if any; another of that name is refused."""
    same = [o for o in listed if o.metadata.user_name == name]
    ours = [o for o in same if is_ours(o, owner, kind)]
    if same and not ours:
        raise ProviderError(f"{kind} {name}: a {kind} of that name exists ({same[0].name}) and "
                            f"{owner_text(marks_of(same[0]))}; choose another name")
    return ours[0] if ours else None


def is_ours(o: NamedObject, owner: OwnerMark | None, kind: str) -> bool:
    """The object's mark proves it this stack's (core/ownership.proves: the proof made for this kind, the user's
    name and the stack acting now, in its annotations or labels; a state without a key: this resource's token in
    a mark that names this stack)."""
    return proves(owner, kind, o.metadata.user_name or "", current_stack(), o.metadata.annotations, None,
                  o.metadata.labels)


def require_ours(kind: str, id_: str, live: NamedObject, props: Mapping[str, Any], doing: str = "deleted") -> None:
    """Refuses to delete (or change: `doing`) a live object that is not this resource's (is_ours)."""
    owner = OwnerMark.model_validate(props["owner"]) if props.get("owner") else None
    if not is_ours(live, owner, kind):
        raise ProviderError(f"{kind} {id_}: not {doing}, {owner_text(marks_of(live))} (only a {kind} "
                            f"this resource created is {doing}); `pulumi state delete` it to stop managing it ({RENAMED_HINT})")


def ours_to_delete(kind: str, id_: str, live: T | None, props: Mapping[str, Any]) -> T | None:
    """The live object a delete goes on with: None when the service no longer has it (said in one line), the
    object when it carries this resource's token; refused otherwise (require_ours)."""
    if live is None:
        say(f"{kind} {id_}: already gone")
        return None
    require_ours(kind, id_, live, props)
    return live


def wait_gone(get: Callable[[], object | None], deadline_s: float, poll_s: float, too_late: str,
              what: str = "the object", *, clock: Clock = REAL) -> None:
    """Polls `get` until the service no longer has the object; `too_late` is the error past the deadline. The
    engine's Cancel ends the wait at once: the delete was sent, `what` is named as left deleting."""
    condition = replace(gone(get, too_late), on_cancel=lambda _last: Failed(
        f"{what}: deleting; stopped waiting until it is gone (cancelled): the next command waits for it again"))
    wait(condition, timeout_s=deadline_s, poll_s=poll_s, clock=clock, cancel=lambda: cancelled(), error=ProviderError)


def network_token_mark(network_annotations: Mapping[str, str] | None) -> dict[str, str]:
    """The annotation a pool gets from the network it is created on: that network's owner token, if any."""
    token = token_on(network_annotations)
    return {NETWORK_TOKEN_ANNOTATION: token} if token else {}


def our_pools_on(network: str, network_token: str | None, pools: Iterable[Any]) -> list[Any]:
    """The pools on `network` created by this stack: they carry the network's own owner token."""
    if not network_token:
        return []
    return [p for p in pools if ((p.spec.network or {}).get("name") == network
                                 and marks_of(p).get(NETWORK_TOKEN_ANNOTATION) == network_token)]
