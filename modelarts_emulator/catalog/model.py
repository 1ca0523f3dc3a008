"""Catalog of flavors, engines, algorithms and dedicated pools the emulator knows about.

The built-in ``catalog.json`` carries every value the API documents' examples use; ``--catalog FILE``
(same shape, any subset of the four lists) adds entries or replaces built-in ones with the same id.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

BUILTIN_CATALOG = Path(__file__).with_name("catalog.json")


class _Model(BaseModel):
    # Extra keys in a user catalog are kept so that a file can carry more detail than we model.
    model_config = ConfigDict(extra="allow")


class Flavor(_Model):
    flavor_id: str
    flavor_name: str
    flavor_type: str = "GPU"
    max_num: int = Field(default=1, ge=1)
    policy: str = "regular"
    dedicated: bool = False  # only usable inside a dedicated pool (modelarts.pool.*)
    billing: dict[str, Any] = Field(default_factory=dict)
    flavor_info: dict[str, Any] = Field(default_factory=dict)
    attributes: dict[str, str] | None = None

    def detail(self) -> dict[str, Any]:
        """The ``spec.resource.flavor_detail`` object of a job response."""
        out: dict[str, Any] = {"flavor_type": self.flavor_type, "billing": self.billing}
        if self.attributes:
            out["attributes"] = self.attributes
        out["flavor_info"] = self.flavor_info
        return out


class Pool(_Model):
    pool_id: str
    flavor_type: str = "GPU"  # CPU pools take no flavor_id (documented)
    max_nodes: int = Field(default=1, ge=1)
    flavors: list[str] = Field(default_factory=list)


class Engine(_Model):
    engine_id: str
    engine_name: str
    engine_version: str
    v1_compatible: bool = False
    run_user: str = ""

    def echo(self) -> dict[str, Any]:
        return {"engine_id": self.engine_id, "engine_name": self.engine_name,
                "engine_version": self.engine_version}


class AlgorithmParameter(_Model):
    name: str
    value: str = ""
    type: str = "String"
    description: str = ""
    required: bool = True
    editable: bool = True


class Algorithm(_Model):
    id: str
    name: str
    code_dir: str
    boot_file: str
    engine_id: str
    parameters: list[AlgorithmParameter] = Field(default_factory=list)
    subscription_id: str | None = None  # set for algorithms reachable as a subscription
    item_version_id: str | None = None


class CatalogFile(BaseModel):
    flavors: list[Flavor] = Field(default_factory=list)
    pools: list[Pool] = Field(default_factory=list)
    engines: list[Engine] = Field(default_factory=list)
    algorithms: list[Algorithm] = Field(default_factory=list)


class Catalog:
    """Lookup tables built from the built-in catalog plus an optional user file."""

    def __init__(self, *files: CatalogFile) -> None:
        self.flavors: dict[str, Flavor] = {}
        self.pools: dict[str, Pool] = {}
        self.engines: dict[str, Engine] = {}
        self.algorithms: dict[str, Algorithm] = {}
        for f in files:
            self.flavors.update({x.flavor_id: x for x in f.flavors})
            self.pools.update({x.pool_id: x for x in f.pools})
            self.engines.update({x.engine_id: x for x in f.engines})
            self.algorithms.update({x.id: x for x in f.algorithms})

    @classmethod
    def load(cls, extra: str | Path | None = None) -> "Catalog":
        files = [CatalogFile.model_validate(json.loads(BUILTIN_CATALOG.read_text()))]
        if extra:
            files.append(CatalogFile.model_validate(json.loads(Path(extra).read_text())))
        return cls(*files)

    def engine_by_name(self, name: str, version: str) -> Engine | None:
        for e in self.engines.values():
            if e.engine_name == name and e.engine_version == version:
                return e
        return None

    def subscription(self, subscription_id: str, item_version_id: str) -> Algorithm | None:
        for a in self.algorithms.values():
            if a.subscription_id == subscription_id and a.item_version_id == item_version_id:
                return a
        return None
