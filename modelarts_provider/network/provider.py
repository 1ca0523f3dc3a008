"""NetworkProvider: create waits until the network is Active; delete only a network carrying our owner
token, and waits until it is gone. check/diff make no API call.

A create first looks for a network of the same user name (os.modelarts/name): one carrying this
resource's token is ours (an earlier, interrupted create) and is taken over when its fields (CIDR,
workspace) are the declared ones, replaced (deleted with our pools on it, then created) when they are not;
any other stops the create naming its owner. A delete removes the pools of this stack on the network first
(they carry its token, see owned_objects.py), so no pool outside the state is left billing on it; each after the
jobs running on it, as a pool's own delete (core/jobs_on_pool.py): this stack's stopped, another owner's stop the
delete naming them unless `force_delete`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pulumi.dynamic import CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult

from ..client.pool_models import WORKSPACE_LABEL, Network
from ..core.fields import differing
from ..core.jobs_on_pool import NETWORK_FORCE, clear_for_delete
from ..core.location import check_same_place, location_of
from ..core.owned_objects import marks_of, our_namesake, our_pools_on, ours_to_delete, wait_gone
from ..core.ownership import OwnerMark, with_key_secret, token_on
from ..core.provider_base import ModelArtsProvider
from ..core.output_lines import say
from ..core.provider_error import ProviderError
from .args import OUTPUT_KEYS, NetworkArgs
from .check import check_inputs, strip_outputs
from .diff import option_changes, replaced_fields
from ..wait_engine import REAL, Clock, Condition, Done, Failed, cancelled, wait

POOL_GONE_WAIT_S = 1800.0


class NetworkProvider(ModelArtsProvider):
    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        return self._checked(olds, news, check_inputs)

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        replaces = replaced_fields(olds, news)
        return DiffResult(changes=bool(replaces or option_changes(olds, news)), replaces=replaces or None,
                          delete_before_replace=True)  # the name stays: the old one must go first

    def _outputs(self, net: Network) -> dict[str, Any]:
        return {"network_name": net.name, "phase": net.status.phase,
                "location": location_of(self._require_settings()).model_dump()}

    def create(self, props: dict[str, Any]) -> CreateResult:
        args = NetworkArgs.model_validate(strip_outputs(props))
        api = self._api()
        net = our_namesake("network", args.name, api.list_networks(), args.owner)
        if net is not None:
            differs = _differences(net, args)
            if not differs:
                say(f"network {args.name}: ours already ({net.name}), taken over")
            else:
                say(f"network {args.name}: ours already ({net.name}, left by an earlier up) but it differs "
                    f"({differs}): deleting it to create the declared one")
                self._remove(net, args.timeout_seconds, args.poll_interval_seconds, args.owner, args.force_delete)
                net = None
        if net is None:
            net = api.create_network(args.to_wire(args.owner.object_marks("network", args.name) if args.owner else {}))
            say(f"network {args.name}: created as {net.name}, waiting until Active")
        net = self._wait_active(net.name, args)
        return CreateResult(net.name, with_key_secret({**args.model_dump(mode="json"), **self._outputs(net)}))

    def _wait_active(self, name: str, args: NetworkArgs) -> Network:
        # A poll hanging on a slow server ends at the deadline (and a last look) or at the first Ctrl-C (the engine).
        api = self._api()
        return wait_active(lambda: api.get_network(name), args.name, name, args.timeout_seconds,
                           args.poll_interval_seconds, say)

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        check_same_place(props.get("location"), location_of(self._require_settings()), f"network {id_}")
        net = self._api().get_network(id_)
        if net is None:
            say(f"network {id_}: gone, dropping it from the state")
            return ReadResult("", {})
        return ReadResult(id_, with_key_secret({**strip_outputs(props), **self._outputs(net)}))

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        args = NetworkArgs.model_validate(strip_outputs(news))  # provider options only: no API call
        return UpdateResult(with_key_secret({**args.model_dump(mode="json"), **{k: olds.get(k) for k in OUTPUT_KEYS}}))

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        check_same_place(props.get("location"), location_of(self._require_settings()), f"network {id_}")
        api = self._api()
        net = ours_to_delete("network", id_, api.get_network(id_), props)
        if net is None:
            return
        owner = OwnerMark.model_validate(props["owner"]) if props.get("owner") else None
        self._remove(net, float(props.get("timeout_seconds") or 600), float(props.get("poll_interval_seconds") or 2.0),
                     owner, props.get("force_delete") is True)
        say(f"network {id_}: deleted")

    def _remove(self, net: Network, timeout_s: float, poll_s: float, owner: OwnerMark | None, force: bool) -> None:
        """Deletes our network (its token checked by the caller) after the pools this stack made on it (a pool
        a killed `up` left outside the state bills per node-hour and blocks the network's delete), each after the
        jobs running on it (clear_for_delete: every pool is checked before any is deleted)."""
        api = self._api()
        pools = our_pools_on(net.name, token_on(marks_of(net)), api.list_pools())
        for pool in pools:
            clear_for_delete(api, pool, pool.name, owner, force, poll_s, say, NETWORK_FORCE)
        for pool in pools:
            say(f"pool {pool.name}: made by this stack on network {net.name} ({pool.summary()}), deleting it "
                "first; billing ends when it is gone")
            api.delete_pool(pool.name)
            wait_gone(lambda: api.get_pool(pool.name), POOL_GONE_WAIT_S, poll_s,
                      f"pool {pool.name}: still deleting after {POOL_GONE_WAIT_S:g} s; the next destroy waits "
                      "for it again", f"pool {pool.name}")
        api.delete_network(net.name)
        wait_gone(lambda: api.get_network(net.name), timeout_s, poll_s,
                  f"network {net.name}: still there after the delete's deadline; the next destroy waits for it again",
                  f"network {net.name}")


_SAID = frozenset({"name", "workspace_id"})  # the name found it; the workspace is compared in its own words below


def _differences(net: Network, args: NetworkArgs) -> str:
    """The fields of our earlier network that are not the declared ones ("" when it fits)."""
    # every declared field the create sends, along its API path (core/fields.py): cidr, and any added later
    live = net.model_dump(by_alias=True, exclude_none=True)
    out = [f"{name} {have} -> {want}" for name, have, want in differing(args, live, _SAID)]
    workspace = net.metadata.labels.get(WORKSPACE_LABEL)
    if args.workspace_id and workspace != args.workspace_id:
        out.append(f"workspace {workspace} -> {args.workspace_id}")
    return "; ".join(out)


def active(read: Callable[[], Network | None], label: str, name: str, timeout_s: float,
           say: Callable[[str], Any]) -> Condition[Network | None, Network]:
    """Until the network is Active (said in one line); Abnormal or gone end the wait at once."""
    def judge(net: Network | None) -> Done[Network] | Failed | None:
        if net is None:
            return Failed(f"network {label} ({name}) disappeared while it was being created")
        if net.status.phase == "Active":
            say(f"network {label}: Active")
            return Done(net)
        if net.status.phase == "Abnormal":
            return Failed(f"network {label} ({name}) is Abnormal")
        return None

    def too_late(net: Network | None) -> Failed:
        return Failed(f"network {label} ({name}) not Active after {timeout_s:g} s "
                      f"(phase {net.status.phase if net is not None else 'unknown'}); it is kept: the next up waits "
                      "for it again")

    def on_cancel(net: Network | None) -> Failed:
        return Failed(f"network {label} ({name}): stopped waiting until Active (cancelled; phase "
                      f"{net.status.phase if net is not None else 'not read yet'}); it is kept: the next up waits for "
                      "it again")

    return Condition("network active", read, judge, too_late, on_cancel, answer=Network | None)


def wait_active(get: Callable[[], Network | None], label: str, name: str, timeout_s: float, poll_s: float,
                say: Callable[[str], Any], clock: Clock = REAL) -> Network:
    return wait(active(get, label, name, timeout_s, say), timeout_s=timeout_s, poll_s=poll_s, clock=clock,
                cancel=lambda: cancelled(), error=ProviderError)
