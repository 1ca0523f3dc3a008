"""What the cost reads of a stack: the parts of the stack config and of the job plans it prices, as its own shapes.

The cost sits below the stack program (tests/architecture/test_layers.py: LAYERS), so it names no type of stack/:
the stack's StackConfig, JobEntry, SweepConfig and JobPlan fit these shapes as they are. Each field is a read-only
property, so a pydantic field or a dataclass field fits it and a `dict` of entries fits a `Mapping` of shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from ..training_job.args import TrainingJobArgs
from .config import BudgetConfig, FlavorPrice, ItemBudget


class CostedSearch(Protocol):
    """A job's search: one job that runs every trial (at most `parallel` at once)."""

    @property
    def trials(self) -> int | None: ...
    @property
    def parallel(self) -> int | None: ...
    @property
    def budget(self) -> ItemBudget | None: ...


class CostedJob(Protocol):
    """A job's or a sweep's entry: where it runs, on how many nodes, how long its wait lets it run."""

    @property
    def pool(self) -> str: ...
    @property
    def nodes(self) -> int: ...
    @property
    def wait_for(self) -> str: ...
    @property
    def wait_timeout_seconds(self) -> float | None: ...
    @property
    def search(self) -> CostedSearch | None: ...


class CostedSweep(CostedJob, Protocol):
    @property
    def budget(self) -> ItemBudget | None: ...


class CostedPoolCreate(Protocol):
    @property
    def flavor(self) -> str: ...
    @property
    def nodes(self) -> int: ...


class CostedPool(Protocol):
    """A pool key: a public flavor, a dedicated pool (`pool_id`) or one the stack creates (`create`)."""

    @property
    def flavor(self) -> str | None: ...
    @property
    def pool_id(self) -> str | None: ...
    @property
    def create(self) -> CostedPoolCreate | None: ...


class CostedStack(Protocol):
    """The stack config's parts the cost reads."""

    @property
    def jobs(self) -> Mapping[str, CostedJob]: ...
    @property
    def sweeps(self) -> Mapping[str, CostedSweep]: ...
    @property
    def pools(self) -> Mapping[str, CostedPool]: ...
    @property
    def prices(self) -> Mapping[str, FlavorPrice]: ...
    @property
    def budget(self) -> BudgetConfig | None: ...


class CostedUpload(Protocol):
    """A local code directory a plan's job uploads: compared by its content hash (still_bills.py)."""

    @property
    def key(self) -> str: ...
    @property
    def local_dir(self) -> str: ...
    @property
    def boot_file(self) -> str: ...
    @property
    def excludes(self) -> tuple[str, ...]: ...


class CostedPlan(Protocol):
    """One planned job (a job, or one point of a sweep) and the args it is declared with."""

    @property
    def key(self) -> str: ...
    @property
    def config_path(self) -> str: ...
    @property
    def args(self) -> TrainingJobArgs: ...
    @property
    def upload(self) -> CostedUpload | None: ...
    @property
    def moved_from(self) -> tuple[str, ...]: ...
    @property
    def sweep(self) -> str | None: ...
    @property
    def search(self) -> object | None: ...
