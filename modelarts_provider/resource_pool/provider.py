"""ResourcePoolProvider: a dedicated pool is created, scaled in place and deleted, waiting each time until
its nodes are where the declaration says. check/diff make no API call.

* create: a pool of the same user name that carries this resource's owner token is ours (an interrupted
  create, e.g. a killed `up`) and is taken over when it matches field by field, changed in place (PATCH)
  when only what a PATCH changes differs, deleted and created anew when anything else does; any other stops
  the create naming its owner. A new pool also carries its network's token (owned_objects.py).
  Otherwise POST, then wait until Running with every node available and every declared job type Enabled
  (jobs run only then). A pool that cannot get there fails the wait at once (CreationFailed, ScalingFailed,
  Abnormal, nodes abnormal or failed to create), naming the reason the pool's order gives (wait.py); the
  deadline too. A pool that never became usable is deleted at once, since it bills per node-hour whether
  a job can use it or not, and the error says so.
* update: one merge-patch PATCH of node counts (a flavor added too), job types and the description, on the
  same pool, then the same wait; a failed scale-up leaves the pool as it is (it is in use) and fails the up
  naming the order's reason.
* delete (and update): only a pool carrying our owner token in a mark naming this stack (owned_objects.py: a copied
  stack never changes or deletes the original's), after the jobs running on it (core/jobs_on_pool.py): this stack's stopped,
  anyone else's stop the delete naming them unless `force_delete`; waits until it is gone.
"""

from __future__ import annotations

from typing import Any

from pulumi.dynamic import CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult

from ..client.errors import ModelArtsError
from ..client.pool_models import DESCRIPTION_ANNOTATION, WORKSPACE_LABEL, Pool
from ..core.fields import Change, DeclaredField, changed_in_place, declarations, differing, drifted, patch_body
from ..core.jobs_on_pool import clear_for_delete
from ..core.location import check_same_place, location_of
from ..core.ownership import OwnerMark, with_key_secret
from ..core.owned_objects import (marks_of, network_token_mark, our_namesake, ours_to_delete, require_ours,
                                  wait_gone)
from ..core.provider_base import ModelArtsProvider
from ..core.output_lines import say
from ..core.provider_error import ProviderError
from .args import OUTPUT_KEYS, ResourcePoolArgs
from .check import check_inputs, strip_outputs
from .diff import decide, recorded_counts, recorded_scope
from .wait import PoolNotUsable, wait_usable

GONE_WAIT_S = 1800.0


class ResourcePoolProvider(ModelArtsProvider):
    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        return self._checked(olds, news, check_inputs)

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        replaces, updates = decide(olds, news)
        # The user's name stays on a replacement: the old pool goes first (and stops billing first).
        return DiffResult(changes=bool(replaces or updates), replaces=replaces or None,
                          delete_before_replace=True)

    def _outputs(self, pool: Pool) -> dict[str, Any]:
        s = pool.status
        return {"pool_name": pool.name, "phase": s.phase, "message": s.message or "",
                "available": sum(s.counts("available").values()), "creating": sum(s.counts("creating").values()),
                "abnormal": sum(s.counts("abnormal").values()),
                "location": location_of(self._require_settings()).model_dump()}

    def _same_place(self, id_: str, props: dict[str, Any]) -> None:
        check_same_place(props.get("location"), location_of(self._require_settings()), f"resource pool {id_}")

    # --- create ------------------------------------------------------------------------------------

    def create(self, props: dict[str, Any]) -> CreateResult:
        args = ResourcePoolArgs.model_validate(strip_outputs(props))
        api = self._api()
        label = args.name
        pool = our_namesake("pool", args.name, api.list_pools(), args.owner)
        if pool is not None:
            pool = self._take_over(pool, args)
        if pool is None:
            net = api.get_network(args.network)
            marks = {**(args.owner.object_marks("pool", args.name) if args.owner else {}),
                     **network_token_mark(marks_of(net) if net is not None else None)}
            pool = api.create_pool(args.to_wire(marks))  # the declared fields along their paths (args.py)
            say(f"pool {label}: created as {pool.name} (billed per node-hour from now on), waiting for "
                f"{sum(args.counts().values())} nodes")
        try:
            pool = self._wait(pool.name, args)
        except PoolNotUsable as err:
            raise ProviderError(f"{err}; {self._remove_unusable(pool.name, args)}") from None
        return CreateResult(pool.name, with_key_secret({**args.model_dump(mode="json"), **self._outputs(pool)}))

    def _wait(self, name: str, args: ResourcePoolArgs, counts: dict[str, int] | None = None,
              scopes: list[str] | None = None) -> Pool:
        api = self._api()
        return wait_usable(lambda: api.get_pool(name), args.name, counts or args.counts(), args.timeout_seconds,
                           args.poll_interval_seconds, say, scopes=args.scope if scopes is None else scopes,
                           reason=self._order_failure)

    def _order_failure(self, pool: Pool) -> str | None:
        """Why the pool's latest order (its create or scaling) failed, as the order says; None when it names
        none or cannot be read (the caller falls back to the pool's status message)."""
        if pool.metadata.order_name is None:
            return None
        try:
            return self._api().get_order(pool.metadata.order_name).failure()
        except ModelArtsError:
            return None

    def _take_over(self, pool: Pool, args: ResourcePoolArgs) -> Pool | None:
        """Our earlier pool (a killed or failed `up` created it; no state holds it): taken over as it is when
        it fits, changed in place when only what a PATCH changes differs (IN_PLACE), deleted (None: create
        anew) when anything else does.
        It bills per node-hour: it is never left standing outside the state."""
        api = self._api()
        differs = _differences(pool, args)
        if not differs:
            say(f"pool {args.name}: ours already ({pool.name}), taken over")
            return pool
        if set(differs) <= IN_PLACE:
            live = {r.flavor: r.count for r in pool.spec.resources}
            what = (f"scaled {differs['node counts']}" if set(differs) == {"node counts"} else
                    "changed in place (" + "; ".join(f"{k} {v}" for k, v in differs.items()) + ")")
            say(f"pool {args.name}: ours already ({pool.name}, left by an earlier up), taken over and {what}")
            try:  # the service changes a Running pool only: its first nodes are waited for
                self._wait(pool.name, args, live, sorted(pool.spec.scope))
            except PoolNotUsable as err:
                raise ProviderError(f"{err}; {self._remove_unusable(pool.name, args)}") from None
            return api.patch_pool(pool.name, patch_body(args, _IN_PLACE_FIELDS))  # every such field as declared
        what = "; ".join(f"{k} {v}" for k, v in differs.items())
        say(f"pool {args.name}: ours already ({pool.name}, left by an earlier up) but it differs ({what}): "
            "deleting it to create the declared one")
        api.delete_pool(pool.name)
        wait_gone(lambda: api.get_pool(pool.name), GONE_WAIT_S, args.poll_interval_seconds,
                  f"pool {args.name}: our earlier pool {pool.name} still deleting after {GONE_WAIT_S:g} s; "
                  "run up again to wait for it", f"pool {args.name}: our earlier pool {pool.name}")
        return None

    def _remove_unusable(self, name: str, args: ResourcePoolArgs) -> str:
        """Delete a pool that never became usable (it bills per node-hour all the same); what happened."""
        try:
            self._api().delete_pool(name)
        except ModelArtsError as err:
            return (f"deleting it failed ({err.error_code}: {err.error_msg}): delete pool {name} in the console, "
                    "it is billed until then")
        return (f"pool {name} was deleted, not left billing; nothing of it is in the state: fix the cause and "
                "run up again")

    # --- read / update --------------------------------------------------------------------------------

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        self._same_place(id_, props)
        pool = self._api().get_pool(id_)
        if pool is None:
            say(f"pool {id_}: gone, dropping it from the state")
            return ReadResult("", {})
        # What is changed in place (node counts, job types, the description) and was changed outside the stack
        # shows as drift, from the declarations (core/fields.drifted): the next up restores ours in place.
        inputs = drifted(ResourcePoolArgs, strip_outputs(props), _details(pool))
        return ReadResult(id_, with_key_secret({**inputs, **self._outputs(pool)}))

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """What changes in place (Change.IN_PLACE in args.py: node counts and added flavors, job types, the
        description): one merge-patch PATCH of this same pool (its id stays) of the fields that changed, then the
        wait; provider options alone make no call."""
        self._same_place(id_, olds)
        args = ResourcePoolArgs.model_validate(strip_outputs(news))
        changed = _changed(olds, args)
        status = {k: olds.get(k) for k in OUTPUT_KEYS}
        if changed:
            api = self._api()
            live = api.get_pool(id_)
            if live is not None:  # a copied stack's state names the original's pool: never changed from the copy
                require_ours("pool", id_, live, news, "changed")
            say(f"pool {args.name}: {'; '.join(_change_lines(olds, args, changed))} (in place)")
            api.patch_pool(id_, patch_body(args, changed))
            try:
                pool = self._wait(id_, args)
            except PoolNotUsable as err:
                raise ProviderError(f"{err}; the pool keeps the nodes it has (jobs may be using it): fix the "
                                    "cause or the count and run up again") from None
            status = self._outputs(pool)
        return UpdateResult(with_key_secret({**args.model_dump(mode="json"), **status}))

    # --- delete ------------------------------------------------------------------------------------------

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        self._same_place(id_, props)
        api = self._api()
        pool = ours_to_delete("pool", id_, api.get_pool(id_), props)
        if pool is None:
            return
        owner = OwnerMark.model_validate(props["owner"]) if props.get("owner") else None
        clear_for_delete(api, pool, str(props.get("name") or id_), owner, props.get("force_delete") is True,
                         float(props.get("poll_interval_seconds") or 5.0), say)
        api.delete_pool(id_)
        say(f"pool {id_}: deleting (it was {pool.summary()}); billing ends when it is gone")
        wait_gone(lambda: api.get_pool(id_), GONE_WAIT_S, float(props.get("poll_interval_seconds") or 5.0),
                  f"pool {id_}: still deleting after {GONE_WAIT_S:g} s; the next destroy waits for it again", f"pool {id_}")
        say(f"pool {id_}: deleted")


_IN_PLACE_FIELDS = [f for f in declarations(ResourcePoolArgs) if f.declared.change is Change.IN_PLACE]


def _details(pool: Pool) -> dict[str, Any]:
    """The pool's details as the service gives them (API names): where the declarations' paths point."""
    return pool.model_dump(by_alias=True, exclude_none=True)


def _changed(olds: dict[str, Any], args: ResourcePoolArgs) -> list[DeclaredField]:
    """The fields changed in place that differ from the recorded declaration (core/fields.changed_in_place); every
    one of them when the recorded inputs no longer validate (a merge patch of the declared values is the same pool
    either way)."""
    try:
        old = ResourcePoolArgs.model_validate(strip_outputs(olds))
    except ValueError:
        return list(_IN_PLACE_FIELDS)
    return changed_in_place(old, args)


def _change_lines(olds: dict[str, Any], args: ResourcePoolArgs, changed: list[DeclaredField]) -> list[str]:
    """What the update says it changes, a part per field: node counts and job types in their own words, any other
    field `name old -> new` (a secret one never shown: none is)."""
    lines = []
    for f in changed:
        if f.name == "resources":
            old = recorded_counts(olds)
            counts = [f"{fl} {old.get(fl, 0)} -> {n}" for fl, n in sorted(args.counts().items()) if old.get(fl) != n]
            if counts:
                lines.append(f"scaling {', '.join(counts)}")
        elif f.name == "scope":
            lines.append(f"job types {', '.join(recorded_scope(olds))} -> {', '.join(args.scope)}")
        elif f.name == "description":
            lines.append("description " + ("removed" if args.description is None else "changed"))
        else:
            lines.append(f"{f.name} {olds.get(f.name)} -> {getattr(args, f.name)}")
    return lines or ["changing"]


def _differences(pool: Pool, args: ResourcePoolArgs) -> dict[str, str]:
    """What an earlier pool of ours has that the declaration does not: {field: "have -> want"}; node counts
    (a flavor added included), job types and the description change in place (IN_PLACE), the rest replaces."""
    live = {r.flavor: r.count for r in pool.spec.resources}
    out: dict[str, str] = {}
    if set(live) - set(args.counts()):
        out["flavors"] = f"{sorted(live)} -> {sorted(args.counts())}"
    elif live != args.counts():
        out["node counts"] = ", ".join(f"{f} {live.get(f, 0)} -> {n}" for f, n in sorted(args.counts().items())
                                       if live.get(f) != n)
    net = (pool.spec.network or {}).get("name")
    if net != args.network:
        out["network"] = f"{net} -> {args.network}"
    if sorted(set(pool.spec.scope)) != args.scope:
        out["job types"] = f"{sorted(pool.spec.scope)} -> {args.scope}"
    if (pool.metadata.annotations.get(DESCRIPTION_ANNOTATION) or None) != args.description:
        out["description"] = "changed"
    workspace = pool.metadata.labels.get(WORKSPACE_LABEL)
    if args.workspace_id and workspace != args.workspace_id:
        out["workspace"] = f"{workspace} -> {args.workspace_id}"
    # Any other declared field the create sends, compared along its API path (core/fields.py): a field added to
    # the declarations is compared without a line here.
    for name, have, want in differing(args, pool.model_dump(by_alias=True, exclude_none=True), _SAID):
        out[name] = f"{have} -> {want}"
    return out


# The fields compared above in their own words (node counts, flavors, job types, ...); the name is how the pool was
# found.
_SAID = frozenset({"name", "resources", "network", "scope", "description", "workspace_id"})
# What one merge-patch PATCH changes (the fields declared Change.IN_PLACE), in the words _differences uses.
IN_PLACE = {"node counts", "job types", "description"} | {f.name for f in _IN_PLACE_FIELDS if f.name not in _SAID}
