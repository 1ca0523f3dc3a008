"""BucketProvider: an OBS bucket that a stack creates, or one it only uses.

* create: true  -> create (a bucket already ours and empty is adopted: an interrupted create
  converges); destroy removes it when empty, or deletes its objects first with force_destroy, only
  when this stack created it (recorded as `created`): an adopted bucket is left with its objects.
* create: false -> create checks that it exists (one-line error naming it otherwise); destroy
  leaves it alone.
* A new bucket name replaces (the new bucket first); `create` and `force_destroy` change in place
  (no API call), so turning create off never deletes the bucket.
check/diff make no API call.
"""

from __future__ import annotations

from typing import Any

from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult
from pydantic import ValidationError

from ..core.messages import explain
from ..obs.errors import ObsError
from ..obs.names import bucket_name_problem
from ..obs.provider_support import ObsProviderBase, ObsProviderError, is_unknown
from ..core.provider_base import say
from .args import OUTPUT_KEYS, BucketArgs, BucketOutputs

DELETE_PARALLELISM = 8


def _inputs(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in OUTPUT_KEYS and not k.startswith("__") and v is not None}


class BucketProvider(ObsProviderBase):
    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        raw = _inputs(news)
        failures: list[CheckFailure] = []
        if not is_unknown(raw.get("bucket")):
            try:
                args = BucketArgs.model_validate(raw)
                if problem := bucket_name_problem(args.bucket):
                    failures.append(CheckFailure("bucket", problem))
            except ValidationError as err:
                for loc, reason in explain(err.errors(include_url=False)):
                    name = str(loc[0]) if loc else "bucket"
                    failures.append(CheckFailure(name, reason))
        return CheckResult(news, failures + self.config_failures())

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        replaces = ["bucket"] if olds.get("bucket") != news.get("bucket") else []
        defaults = BucketArgs.model_fields
        updates = [k for k in ("create", "force_destroy")
                   if olds.get(k, defaults[k].default) != news.get(k, defaults[k].default)]
        return DiffResult(changes=bool(replaces or updates), replaces=replaces or None,
                          delete_before_replace=False)

    def create(self, props: dict[str, Any]) -> CreateResult:
        args = BucketArgs.model_validate(_inputs(props))
        obs, name = self._obs(), args.bucket
        try:
            if not args.create:
                if not obs.bucket_exists(name):
                    raise ObsProviderError(f"bucket {name} does not exist (create: false uses an existing "
                                           f"bucket): create it, or set create: true")
                created = False
            elif obs.create_bucket(name):
                say(f"bucket {name}: created in {obs.settings.region}")
                created = True
            elif obs.has_objects(name):
                raise ObsProviderError(f"bucket {name} already exists in your account and holds objects: "
                                       f"declare it with create: false (never deleted by the stack)")
            else:
                say(f"bucket {name}: already there and empty, taken over")
                created = False
        except ObsError as err:
            if err.code == "BucketAlreadyExists":
                raise ObsProviderError(f"bucket {name} belongs to another account (bucket names are "
                                       f"global): choose another name") from None
            raise ObsProviderError(f"bucket {name}: {err}") from None
        outputs = BucketOutputs(url=f"obs://{name}/", created=created)
        return CreateResult(name, {**_inputs(props), **outputs.model_dump()})

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        return UpdateResult({**_inputs(news), **{k: olds.get(k) for k in OUTPUT_KEYS}})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        try:
            exists = self._obs().bucket_exists(id_)
        except ObsError as err:
            raise ObsProviderError(f"bucket {id_}: {err}") from None
        if not exists:
            say(f"bucket {id_}: gone, dropping it from the state")
            return ReadResult("", {})
        return ReadResult(id_, props)

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        args = BucketArgs.model_validate(_inputs(props))
        if not args.create:
            say(f"bucket {id_}: kept (create: false)")
            return
        if props.get("created") is not True:
            # Recorded at create: it existed before this stack (taken over empty). Never this stack's
            # to delete, whatever force_destroy says: a colleague may have put objects in it since.
            say(f"bucket {id_}: kept with its objects (it existed before this stack created anything in it)")
            return
        obs = self._obs()
        try:
            if args.force_destroy and obs.bucket_exists(id_):
                deleted = obs.delete_keys(id_, (o.key for o in obs.iter_objects(id_)), DELETE_PARALLELISM)
                if deleted:
                    say(f"bucket {id_}: {deleted} objects deleted (force_destroy)")
            gone = not obs.delete_bucket(id_)
        except ObsError as err:
            if err.code == "BucketNotEmpty":
                raise ObsProviderError(f"bucket {id_} is not empty: empty it, or set force_destroy: true "
                                       f"(and pulumi up) before destroying") from None
            raise ObsProviderError(f"bucket {id_}: {err}") from None
        say(f"bucket {id_}: " + ("already gone" if gone else "deleted"))
