"""One row per job field: where a job entry's key goes, and what it may carry.

Every field of a job entry (stack/config.py: JobEntry) is declared once, with a `Maps` beside its type:

    image: Annotated[str | None, Maps(carries=("algorithm.engine",), secret=True, sends=True)] = None

A key whose value is the job argument as it is (`nodes`, `command`, `waitFor`, ...) is not written in JobEntry:
the argument's own declaration names its key (training_job/args.py, core/fields.py: `Declared.config`,
`ConfigKey`) and `with_declared` below makes the field and its row from it. Everything else that must know
about fields is derived from the rows, so a field added or renamed in one place cannot be missed in another:

- the config -> args map of plain fields (`direct`: the value is the argument), program.job_args;
- the reverse names for messages (an args path -> the key the user wrote), program._config_field;
- the args words a rule may use in its message (`words`), program._config_words;
- the secret paths: which TrainingJob inputs carry a secret set on a key, stack/secrets.py;
- what a job sends to the service (a wholly secret entry makes all of it secret);
- the OBS paths a job reads or writes (a secret OBS location makes them secret; written ones decide the
  replacement order, training_job/diff.py);
- the keys that become names, URNs or OBS keys (never secret).

tests/stack/test_job_fields.py fails when a field exists in one layer (config, args) and not in the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import create_model
from pydantic.alias_generators import to_camel, to_snake

from ..core.fields import configured
from .declared_keys import field_like

if TYPE_CHECKING:
    from pydantic import BaseModel

Path_ = tuple[str, ...]


@dataclass(frozen=True)
class Maps:
    """A job field's row. `args`: the TrainingJobArgs paths (dotted) whose messages name this key; `carries`:
    further paths its value flows into (a code directory is also in the boot file's path)."""

    args: tuple[str, ...] | str = ()
    carries: tuple[str, ...] = ()
    secret: bool = False  # the value may be secret material (marked secret where it lands)
    sends: bool = False  # the service receives it (part of what a wholly secret job entry hides)
    keyed: bool = False  # a map whose entries the config names by key: a secret `parameters.lr` is that entry
    obs: Literal["reads", "writes"] | None = None  # an OBS path of the job's location
    words: bool = False  # rule messages may use the args name (code_dir): shown as the config key
    direct: bool = False  # the value is the argument, unchanged (program.job_args copies it)
    name: str | None = None  # becomes part of a name, URN or OBS key ("a job name"): never secret
    shown: tuple[tuple[str, str], ...] = ()  # an args path -> the words messages use, where not the key

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.args,) if isinstance(self.args, str) else self.args


@dataclass(frozen=True)
class Row:
    attr: str  # JobEntry's attribute
    key: str  # the key users write
    maps: Maps


@dataclass(frozen=True)
class Table:
    rows: tuple[Row, ...]

    def row(self, key: str) -> Row:
        return next(r for r in self.rows if r.key == key)

    @property
    def config_names(self) -> dict[str, str]:
        """args path -> the config key (or words) messages name it by."""
        out: dict[str, str] = {}
        for r in self.rows:
            shown = dict(r.maps.shown)
            for p in r.maps.paths:
                out.setdefault(p, shown.get(p, r.key))
        return out

    @property
    def words(self) -> dict[str, str]:
        """args names a rule's words may use -> the config key."""
        return {p.rpartition(".")[2]: r.key for r in self.rows if r.maps.words for p in r.maps.paths}

    @property
    def secret_targets(self) -> dict[str, list[Path_]]:
        """config key -> the TrainingJob input paths a secret set on it lands in."""
        return {r.key: [_path(p) for p in (*r.maps.paths, *r.maps.carries)] for r in self.rows if r.maps.secret}

    @property
    def sent(self) -> list[Path_]:
        """The top-level TrainingJob inputs that go to the service (a wholly secret entry: all of them)."""
        out: list[Path_] = []
        for r in self.rows:
            if r.maps.sends:
                for p in (*r.maps.paths, *r.maps.carries):
                    top = (p.split(".")[0],)
                    if top not in out:
                        out.append(top)
        return out

    def obs_paths(self, *kinds: str) -> list[Path_]:
        """TrainingJob input paths holding OBS URLs of the job's location (reads, writes or both)."""
        out: list[Path_] = []
        for r in self.rows:
            if r.maps.obs in (kinds or ("reads", "writes")):
                out += [_path(p) for p in (*r.maps.paths, *r.maps.carries) if _path(p) not in out]
        return out

    @property
    def keyed(self) -> set[Path_]:
        return {_path(p) for r in self.rows if r.maps.keyed for p in r.maps.paths}

    @property
    def direct(self) -> list[tuple[str, str]]:
        """(JobEntry attribute, args path) of the fields whose value is the argument."""
        return [(r.attr, r.maps.paths[0]) for r in self.rows if r.maps.direct]

    @property
    def names(self) -> dict[str, str]:
        """config key -> what it becomes, for the keys that must not be secret."""
        return {r.key: r.maps.name for r in self.rows if r.maps.name}

    @property
    def options(self) -> tuple[str, ...]:
        """The keys of the provider's own options (waitFor, timeouts, run keeping): set as they are, never sent,
        and recorded in the state as they are (a secret there is refused, stack/secrets.py)."""
        return tuple(r.key for r in self.rows if r.maps.direct and not r.maps.sends and not r.maps.secret)


def _path(dotted: str) -> Path_:
    return tuple(dotted.split("."))


def maps_of(model: type[BaseModel]) -> Table:
    """The table of a job entry model: one row per field, from the `Maps` in its annotation."""
    return _table(model)


@cache
def _table(model: type[BaseModel]) -> Table:
    rows = []
    for attr, info in model.model_fields.items():
        found = [m for m in info.metadata if isinstance(m, Maps)]
        if len(found) != 1:
            raise TypeError(f"{model.__name__}.{attr}: needs exactly one Maps(...) row (stack/job_fields.py)")
        rows.append(Row(attr, info.alias or to_camel(attr), found[0]))
    return Table(tuple(rows))


def with_declared(entry: type[BaseModel], args: type[BaseModel]) -> type[BaseModel]:
    """`entry` with a field for each argument (or part of one) declared with a config key (core/fields.py:
    `Declared.config`, `ConfigKey`) that `entry` does not declare itself: its value the argument as it is (a
    `direct` row), with the argument's type, rules, default and description, so the job entry cannot allow what
    the argument refuses, or the reverse. The entry's own fields are the keys that shape their value (pool, code,
    logs, ...); a new argument with a config key is a key of every job and sweep without a second declaration.

    The row: `sends` when the service receives the argument (its API path, or its parent's); `secret` (a secret
    set on the key is marked where it lands, stack/secrets.py) for what the service receives and what is declared
    secret, as the entry's own rows of sent data: a provider option (waitFor, timeouts) steers the provider and is
    not carried as a secret; `words` where the argument's name is snake_case (working_dir, node_count: never a
    word of a sentence, as `id` or `command` could be), so that a rule's message shows it as the key."""
    own = {r.key for r in maps_of(entry).rows}
    extra: dict[str, Any] = {}
    for c in configured(args):
        if c.key in own:
            continue
        row = Maps(c.path, secret=c.declared.secret or c.declared.sent, sends=c.declared.sent, direct=True,
                   words="_" in c.path.rpartition(".")[2])
        extra[to_snake(c.key)] = field_like(c.info, row)
    if not extra:
        return entry
    return create_model(entry.__name__, __base__=entry, __module__=entry.__module__, **extra)
