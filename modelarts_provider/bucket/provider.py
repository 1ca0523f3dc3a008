"""BucketProvider: an OBS bucket that a stack creates, or one it only uses.

* create: true  -> create (a bucket already ours and empty is adopted: an interrupted create
  converges); destroy removes it when empty, or deletes its objects first with force_destroy, only
  when this stack created it (recorded as `created`): an adopted bucket is left with its objects.
* create: false -> create checks that it exists (one-line error naming it otherwise); destroy
  leaves it alone.
* A new bucket name replaces (the new bucket first); `create` and `force_destroy` change in place
  (no API call), so turning create off never deletes the bucket.
* The owner mark (core/ownership.py): a bucket this stack creates carries the proof of it in its tags
  (`modelarts-pulumi.mark`, HMAC of the stack's mark key, "bucket", its name and the stack), and is deleted (emptied
  first with force_destroy) only when that proof verifies for the stack destroying: a copied stack's state says
  `created` too, and never deletes the original's bucket with its models. A state from before the mark (no key)
  gets the proof at its next `up`, on the strength of its `created` record.
check/diff make no API call.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult
from pydantic import ValidationError

from ..core.messages import explain
from ..obs.errors import ObsError
from ..obs.names import bucket_name_problem
from ..core.obs_provider import ObsProviderBase, ObsProviderError
from ..core.unknowns import is_unknown
from ..core.output_lines import say
from ..client.owner_token import MARK_TAG, TOKEN_TAG
from ..core.ownership import OwnerMark, keyed, proves, with_key_secret
from ..core.secret_leaves import plain
from ..core.renames import RENAMED_HINT
from ..client.errors import ModelArtsError
from ..core.jobs_on_pool import of_this_stack
from ..core.provider_config import ProviderConfigError
from ..core.resource_inputs import inputs_among
from .args import OUTPUT_KEYS, BucketArgs, BucketOutputs
from .run_folders import foreign_folders, kept_by

DELETE_PARALLELISM = 8


_inputs = inputs_among(BucketOutputs, drop_none=True)


def _key(props: dict[str, Any]) -> str | None:
    owner = props.get("owner")
    return plain(owner.get("key")) if isinstance(owner, dict) else None


def _mark_tags(owner: OwnerMark, bucket: str) -> dict[str, str]:
    """The bucket tags that carry the mark: the proof and the token (whose resource; the owner text is no tag value)."""
    return {MARK_TAG: owner.proof("bucket", bucket) or "", TOKEN_TAG: owner.token}


class BucketProvider(ObsProviderBase):
    def _proven(self, obs: Any, id_: str, args: BucketArgs) -> bool:
        """Whether the bucket's tags prove it this stack's (a state with a mark key); said in one line when not: the
        bucket is then kept with every object."""
        if args.owner is None or args.owner.key is None or not obs.bucket_exists(id_):
            return True  # a state from before the mark: its `created` record decides, as it did
        if proves(args.owner, "bucket", id_, None, obs.bucket_tags(id_)):
            return True
        say(f"bucket {id_}: kept with its objects: its owner mark does not prove it this stack's (another stack, or "
            f"a copy of this one, made it; {RENAMED_HINT}); delete it yourself if it is no one's")
        return False

    def _foreign_folders(self, id_: str, args: BucketArgs) -> dict[str, str]:
        """The folders in the bucket of the jobs the service holds that are not this stack's (run_folders.py). No
        ModelArts settings (a stack of buckets alone): none, said in one line; a listing that fails: refused."""
        try:
            api = self._modelarts()
        except ProviderConfigError as err:
            say(f"bucket {id_}: the jobs writing into it were not checked (no ModelArts settings: {err})")
            return {}
        try:
            return foreign_folders(api.iter_jobs(), id_, lambda job: of_this_stack(api, job, args.owner))
        except ModelArtsError as err:
            raise ObsProviderError(f"bucket {id_}: not emptied: the jobs writing into it could not be listed "
                                   f"({err.error_code} {err.error_msg}); run destroy again") from None

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        news = keyed(news, olds)  # the stack's seed made the owner mark's token and key
        if isinstance(news.get("owner"), dict) and not news["owner"].get("token"):
            # No seed (library use), or not known yet (a new stack's preview): no mark, as before the mark existed
            news = {k: v for k, v in news.items() if k != "owner"}
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
        return CheckResult(with_key_secret(news), failures + self.config_failures())

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        replaces = ["bucket"] if olds.get("bucket") != news.get("bucket") else []
        defaults = BucketArgs.model_fields
        updates = [k for k in ("create", "force_destroy")
                   if olds.get(k, defaults[k].default) != news.get(k, defaults[k].default)]
        if _key(news) and _key(olds) != _key(news):  # a state from before the mark key: its proof is written
            updates.append("owner")
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
            if created and args.owner is not None and args.owner.key is not None:
                obs.add_bucket_tags(name, _mark_tags(args.owner, name))  # in the create, before any object
        except ObsError as err:
            if err.code == "BucketAlreadyExists":
                raise ObsProviderError(f"bucket {name} belongs to another account (bucket names are "
                                       f"global): choose another name") from None
            raise ObsProviderError(f"bucket {name}: {err}") from None
        outputs = BucketOutputs(url=f"obs://{name}/", created=created)
        return CreateResult(name, with_key_secret({**_inputs(props), **outputs.model_dump()}))

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        args = BucketArgs.model_validate(_inputs(news))
        if (olds.get("created") is True and args.create and args.owner is not None and args.owner.key is not None
                and not _key(olds)):
            try:  # the upgrade: this stack's `created` record proves it once; the proof carries it from now on
                self._obs().add_bucket_tags(id_, _mark_tags(args.owner, id_))
            except ObsError as err:
                raise ObsProviderError(f"bucket {id_}: its owner mark could not be written: {err}") from None
        return UpdateResult(with_key_secret({**_inputs(news), **{k: olds.get(k) for k in OUTPUT_KEYS}}))

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        try:
            exists = self._obs().bucket_exists(id_)
        except ObsError as err:
            raise ObsProviderError(f"bucket {id_}: {err}") from None
        if not exists:
            say(f"bucket {id_}: gone, dropping it from the state")
            return ReadResult("", {})
        return ReadResult(id_, with_key_secret(props))

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
            if not self._proven(obs, id_, args):
                return
            if args.force_destroy and obs.bucket_exists(id_):
                foreign = self._foreign_folders(id_, args)
                kept: dict[str, int] = {}

                def doomed() -> Iterator[str]:  # streamed to the deletes as before, another owner's counted instead
                    for o in obs.iter_objects(id_):
                        job = kept_by(o.key, foreign)
                        if job is None:
                            yield o.key
                        else:
                            kept[job] = kept.get(job, 0) + 1

                deleted = obs.delete_keys(id_, doomed(), DELETE_PARALLELISM)
                if deleted:
                    say(f"bucket {id_}: {deleted} objects deleted (force_destroy)")
                if kept:
                    raise ObsProviderError(
                        f"bucket {id_}: not deleted: it holds the outputs of runs that are not this stack's ("
                        + ", ".join(f"{job}: {n} objects" for job, n in sorted(kept.items()))
                        + "), kept whatever force_destroy says; their owner removes them, or you do by hand")
            gone = not obs.delete_bucket(id_)
        except ObsError as err:
            if err.code == "BucketNotEmpty":
                raise ObsProviderError(f"bucket {id_} is not empty: empty it, or set force_destroy: true "
                                       f"(and pulumi up) before destroying") from None
            raise ObsProviderError(f"bucket {id_}: {err}") from None
        say(f"bucket {id_}: " + ("already gone" if gone else "deleted"))
