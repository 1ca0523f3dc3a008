"""The resource types the provider plugin serves: one row per type, each naming the dynamic provider class
that does the work behind both front doors.

A row adds only what the Python resource classes do in the program before their provider is called, which a
YAML or TypeScript program cannot do (`prepare`: derived job names, owner marks, a code directory's hash),
how the engine's customTimeouts reach the provider's own deadline inputs (`timeouts`), and how an existing
object is read for `pulumi import` (`importer`). A new resource type plugs in with one row in DOORS: its schema
comes from the row's pydantic models (schema.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..awaiting.provider import JobsAwaitProvider
from ..bucket.args import BucketArgs, BucketOutputs
from ..bucket.provider import BucketProvider
from ..code_upload.inputs import ARGS as CODE_UPLOAD_ARGS, provider_inputs
from ..code_upload.provider import CodeUploadProvider
from ..network.args import NetworkArgs, NetworkOutputs
from ..network.provider import NetworkProvider
from ..resource_pool.args import ResourcePoolArgs, ResourcePoolOutputs
from ..resource_pool.provider import ResourcePoolProvider
from ..core.ownership import OwnerMark, owner_text
from ..training_job.lifecycle import is_ours
from ..training_job.name_index import job_token, marks, with_tags_read
from ..core.provider_base import SettingsProvider
from ..core.output_lines import say
from ..core.provider_error import ProviderError
from ..training_job.from_live import declaration_of
from ..core.identity import is_seed, mark_key, token_for
from ..training_job.naming import SEED_INPUT
from ..training_job.normalize import try_canonical
from ..training_job.outputs import secret_outputs, strip_outputs
from ..training_job.provider import TrainingJobProvider

PACKAGE = "modelarts"
# The organization part of an owner mark: what `pulumi.get_organization()` gives a program on a file backend
# (the provider protocol does not tell a provider its organization).
ORGANIZATION = "organization"


class ImportRefused(ProviderError):
    """`pulumi import` of a type that has no live object to read, or of an object that cannot be adopted."""


@dataclass(frozen=True)
class Context:
    """Who is asking: the resource's URN parts, and the stack's owner seed (modelarts_provider.core.identity: minted
    by the plugin's CheckConfig into the provider's own inputs, recorded before any resource using it)."""

    urn: str
    seed: str = ""

    @property
    def name(self) -> str:
        return self.urn.rsplit("::", 1)[-1]

    @property
    def stack_label(self) -> str:
        # urn:pulumi:<stack>::<project>::<type>::<name>
        head = self.urn.split("::")
        stack = head[0].rsplit(":", 1)[-1] if head else ""
        project = head[1] if len(head) > 1 else ""
        return f"{ORGANIZATION}/{project}/{stack}"

    def new_token(self) -> str:
        """This resource's owner token: from the stack's seed, so the same again after a killed `up` (else, with
        no seed, e.g. at `pulumi import` of a job without a mark: from the OS)."""
        return token_for(self.seed, self.name) if is_seed(self.seed) else os.urandom(8).hex()


Props = dict[str, Any]
Prepare = Callable[[Context, Props, Props], Props]
Timeouts = Callable[[str, Props, float], Props]
Outputs = Callable[[Props], Props]
Importer = Callable[[Any, str, Context], tuple[Props, Props]]
SecretOutputs = Callable[[list[str]], list[str]]  # secret input paths -> the outputs derived from them


def _none_derived(_paths: list[str]) -> list[str]:
    return []


def _derived_from(inputs: tuple[str, ...], outputs: list[str]) -> SecretOutputs:
    def derived(paths: list[str]) -> list[str]:
        return outputs if any(p.split(".")[0] in inputs for p in paths) else []
    return derived


def _as_is(_ctx: Context, _olds: Props, news: Props) -> Props:
    return news


def _outputs_as_given(outs: Props) -> Props:
    return outs


def _no_timeouts(_op: str, props: Props, _timeout: float) -> Props:
    return props


def _not_importable(kind: str) -> Importer:
    def refuse(_provider: Any, id_: str, _ctx: Context) -> tuple[Props, Props]:
        raise ImportRefused(f"{kind} {id_}: cannot be imported (it holds nothing that lives on its own in the "
                            "cloud): declare it in the program instead")
    return refuse


@dataclass(frozen=True)
class Door:
    provider: type[SettingsProvider[Any]]
    description: str
    prepare: Prepare = _as_is
    timeouts: Timeouts = _no_timeouts
    importer: Importer = field(default_factory=lambda: _not_importable("this resource"))
    # The schema of a type without a schema of its own in schema.py: its inputs' and outputs' pydantic models.
    args_model: type[BaseModel] | None = None
    outputs_model: type[BaseModel] | None = None
    # Outputs built from secret inputs (an output path from a secret OBS URL): secret too. Outputs named as
    # the secret inputs are secret anyway.
    secret_outputs: SecretOutputs = _none_derived
    # What the engine records as outputs, from what the provider returned (create, update, read).
    outputs: Outputs = _outputs_as_given
    # Inputs whose secrets the provider hands to masking per item itself, not for the whole call (a JobsAwait's
    # `secrets`: each job's own, so that one job's secret does not mask another job's plain value).
    item_secrets: frozenset[str] = frozenset()


# --- TrainingJob ---------------------------------------------------------------------------------


def _owner(ctx: Context, olds: Props, news: Props) -> Props:
    for props in (news, olds):
        if isinstance(props.get("owner"), dict):
            return props["owner"]
    return {"stack": ctx.stack_label, "resource": ctx.name, "token": ctx.new_token()}


def prepare_training_job(ctx: Context, olds: Props, news: Props) -> Props:
    """What TrainingJob.__init__ does in a Python program: the owner mark and the stack's seed, from which the
    provider's check derives the token and, when no name is given, the job's name (training_job/naming.py)."""
    props = {k: v for k, v in news.items() if v is not None and k != SEED_INPUT}
    owner = props.get("owner") if isinstance(props.get("owner"), dict) else None
    props["owner"] = owner or {"stack": ctx.stack_label, "resource": ctx.name}
    if ctx.seed:
        props[SEED_INPUT] = ctx.seed
    if props.get("name") is None and props.get("adopt_job_id") is None:
        props["derived_name"] = True
    return props


def training_job_outputs(outs: Props) -> Props:
    """Every input property with its default, then the status: the schema's outputs, read back by a YAML,
    TypeScript or Go program whether it declared a value or left the default. The provider returns the
    stored form (training_job/normalize.py: no defaults), which the dynamic door records as it is (the Python
    SDK reads declared values from the program's own inputs)."""
    inputs = try_canonical(strip_outputs(outs))
    return {**inputs, **outs} if inputs is not None else outs


def training_job_timeouts(op: str, props: Props, timeout: float) -> Props:
    """customTimeouts.delete bounds the job's stop (it replaces delete_timeout_seconds)."""
    return {**props, "delete_timeout_seconds": timeout} if op == "delete" else props


def import_training_job(provider: TrainingJobProvider, id_: str, ctx: Context) -> tuple[Props, Props]:
    """`pulumi import`: the live job's declaration, and this resource's owner mark (ownership.py's rules, as for a
    takeover). A job without a mark gets this resource's token recorded: it is this resource's by its id in the
    state, as after `adopt_job_id`. A job carrying this resource's own token (derived from this stack's seed:
    imported again after a `pulumi state delete`) is imported as its own again. A job carrying any other token
    is someone else's, whatever its owner text says (a stack of the same name on another backend): refused."""
    job = provider._api().get_job(id_)
    if job is None:
        raise ImportRefused(f"training job {id_}: no such job in this project (import takes the job id, e.g. from "
                            "the console or `python -m modelarts_provider logs`)")
    (job,) = with_tags_read(provider._api(), [job])  # the mark in its tags where annotations are dropped
    token = job_token(job)
    owner = OwnerMark(stack=ctx.stack_label, resource=ctx.name, token=ctx.new_token(),
                      key=mark_key(ctx.seed) if is_seed(ctx.seed) else None)
    if token is not None:
        if token != owner.token or not is_ours(job, owner):
            raise ImportRefused(f"training job {job.name} ({id_}) is not this resource's to import: "
                                f"{owner_text(marks(job))}, not this stack's token for {ctx.name}; "
                                "import it into the stack that owns it, or declare it with adopt_job_id (used, "
                                "never stopped or deleted by this stack)")
        say(f"{job.name}: carries this resource's owner token: imported as its own again")
    if owner.key is not None and not is_ours(job, owner):
        # Imported: this resource's from now on, so it carries the proof where the service returns it (its tags),
        # as a job taken over or adopted does; a later stop or delete verifies it (core/ownership.py).
        provider._api().create_job_tags(id_, owner.tags(job.name))
    # The short declaration (no defaults written out) is what the generated code shows; the state's outputs
    # hold the canonical form with every default, as after any create (the schema's required outputs).
    inputs = {**declaration_of(job), "owner": owner.model_dump()}
    checked = provider.check({}, inputs)
    if checked.failures:
        raise ImportRefused(f"training job {job.name} ({id_}) cannot be declared: "
                            + "; ".join(f"{f.property}: {f.reason}" for f in checked.failures))
    read = provider.read(id_, checked.inputs)
    return inputs, training_job_outputs(read.outs)


# --- JobsAwait -----------------------------------------------------------------------------------


def jobs_await_timeouts(op: str, props: Props, timeout: float) -> Props:
    """customTimeouts.create/update bound the wait: every job's deadline becomes the timeout, whatever its
    wait_timeout_seconds (a job past it is terminated, as at its own deadline)."""
    if op not in ("create", "update") or not isinstance(props.get("jobs"), dict):
        return props
    jobs = {k: ({**j, "timeout_seconds": timeout} if isinstance(j, dict) else j) for k, j in props["jobs"].items()}
    return {**props, "jobs": jobs}


# --- CodeUpload ----------------------------------------------------------------------------------


def prepare_code_upload(ctx: Context, olds: Props, news: Props) -> Props:
    """What CodeUpload.__init__ does in a Python program: read the directory (hash, size), and this resource's
    owner token (part of the upload's prefix)."""
    given = {k: v for k, v in news.items() if k in CODE_UPLOAD_ARGS and v is not None}
    props = provider_inputs(ctx.name, given)  # other names are refused by the engine against the schema
    props["owner_token"] = olds.get("owner_token") or news.get("owner_token") or ctx.new_token()
    return props


# --- Bucket --------------------------------------------------------------------------------------


def prepare_bucket(ctx: Context, olds: Props, news: Props) -> Props:
    """What Bucket.__init__ does in a Python program: the defaults, this resource's owner mark and the stack's seed."""
    props = {"create": True, "force_destroy": False,
             **{k: v for k, v in news.items() if v is not None and k != SEED_INPUT}}
    props["owner"] = props.get("owner") or {"stack": ctx.stack_label, "resource": ctx.name}
    if ctx.seed:
        props[SEED_INPUT] = ctx.seed
    return props


def import_bucket(provider: BucketProvider, id_: str, _ctx: Context) -> tuple[Props, Props]:
    """An imported bucket is one this stack uses, never deletes (create: false): it was there before."""
    inputs = {"bucket": id_, "create": False, "force_destroy": False}
    read = provider.read(id_, inputs)
    if not read.id:
        raise ImportRefused(f"bucket {id_}: no such bucket")
    return inputs, {**inputs, "url": f"obs://{id_}/", "created": False}


# --- Network and ResourcePool ------------------------------------------------------------------


def prepare_owned(ctx: Context, olds: Props, news: Props) -> Props:
    """What Network/ResourcePool.__init__ do in a Python program: this resource's owner mark."""
    props = {k: v for k, v in news.items() if v is not None and k != SEED_INPUT}
    props["owner"] = _owner(ctx, olds, props)
    if ctx.seed:
        props[SEED_INPUT] = ctx.seed  # check makes it the owner mark's key (core/ownership.py)
    return props


def waits_timeouts(op: str, props: Props, timeout: float) -> Props:
    """customTimeouts.create/update bound the wait for the network or the pool's nodes."""
    return {**props, "timeout_seconds": timeout} if op in ("create", "update") else props


DOORS: dict[str, Door] = {
    "TrainingJob": Door(TrainingJobProvider, "A ModelArts training job: submitted on create (no wait: see JobsAwait).",
                        prepare_training_job, training_job_timeouts, import_training_job,
                        secret_outputs=secret_outputs, outputs=training_job_outputs),
    "JobsAwait": Door(JobsAwaitProvider, "Waits for many training jobs at once, each to its own wait_for target.",
                      timeouts=jobs_await_timeouts, importer=_not_importable("JobsAwait"),
                      item_secrets=frozenset({"secrets"})),
    "CodeUpload": Door(CodeUploadProvider, "A local code directory uploaded to OBS under a content-addressed prefix.",
                       prepare_code_upload, importer=_not_importable("CodeUpload"),
                       secret_outputs=_derived_from(("bucket", "prefix", "job_key"),
                                                    ["code_dir", "boot_file", "marker_key"])),
    "Bucket": Door(BucketProvider, "An OBS bucket the stack creates, or one it only uses (create: false).",
                   prepare_bucket, importer=import_bucket, args_model=BucketArgs, outputs_model=BucketOutputs,
                   secret_outputs=_derived_from(("bucket",), ["url"])),
    "Network": Door(NetworkProvider, "A ModelArts network for dedicated pools: created, waited for until Active.",
                    prepare_owned, waits_timeouts, _not_importable("Network"), NetworkArgs, NetworkOutputs),
    "ResourcePool": Door(ResourcePoolProvider, "A dedicated ModelArts resource pool: created and scaled in place, "
                         "waited for until every node is available; billed per node-hour while it exists.",
                         prepare_owned, waits_timeouts, _not_importable("ResourcePool"), ResourcePoolArgs,
                         ResourcePoolOutputs),
}


def token(type_name: str) -> str:
    return f"{PACKAGE}:index:{type_name}"
