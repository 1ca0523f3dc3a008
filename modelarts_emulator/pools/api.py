"""HTTP side of pools and networks: routes (SDK ``create_pool``, ``show_pool``, ``list_pools``, ``patch_pool``,
``delete_pool``, ``create_network``, ``show_network``, ``list_networks``, ``delete_network``,
``list_resource_flavors``, ``show_order``, and the orders list Terraform reads), their handlers, and the
``/_emulator/pools`` and ``/_emulator/pool-faults`` test controls. responses.py routes here; state lives in
state.py, orders in orders.py, queued jobs in jobs.py.

A body breaking a rule is refused with the service's generic ``ModelArts.0104`` "Parameter error." naming
the field (the training-job API's ``ModelArts.2788`` belongs to that API).
"""

from __future__ import annotations

import json
from typing import Any, TypeVar
from urllib.parse import parse_qs

from pydantic import BaseModel, ValidationError

from .. import errors
from . import jobs as pool_jobs
from ..catalog.model import Catalog
from ..config import EmulatorConfig
from ..jobs.models import Store
from ..routes import operations, routes
from .wire import (RESOURCE_FLAVORS, CreateNetworkBody, CreatePoolBody, FLAVORS_BY_NAME, PatchNetworkBody,
                        PatchPoolBody, PoolFault, render_flavor)
from .state import PoolStore, PoolTimings

M = TypeVar("M", bound=BaseModel)

ROUTES = routes("""
    POST    /v2/{project}/pools                    pool_create
    GET     /v2/{project}/pools                    pool_list
    GET     /v2/{project}/pools/{name}             pool_get
    PATCH   /v2/{project}/pools/{name}             pool_update
    DELETE  /v2/{project}/pools/{name}             pool_delete
    GET     /v2/{project}/pools/{name}/nodes       pool_nodes
    POST    /v1/{project}/networks                 network_create
    GET     /v1/{project}/networks                 network_list
    GET     /v1/{project}/networks/{name}          network_get
    PATCH   /v1/{project}/networks/{name}          network_update
    DELETE  /v1/{project}/networks/{name}          network_delete
    GET     /v1/{project}/resourceflavors          resource_flavors
    GET     /v1/{project}/orders                   order_list
    GET     /v1/{project}/orders/{name}            order_get
""")
OPERATIONS = operations(ROUTES)
CONTROLS = frozenset({"pools", "pool-faults"})


class PoolApi:
    def __init__(self, config: EmulatorConfig, store: Store) -> None:
        self.config = config
        self.jobs = store
        self.store = PoolStore(store)

    @property
    def timings(self) -> PoolTimings:
        c = self.config
        return PoolTimings(network_ms=int(c.network_seconds * 1000), pool_ms=int(c.pool_seconds * 1000),
                           delete_ms=int(c.phase_seconds * 1000), scope_ms=int(c.scope_seconds * 1000))

    def schedule(self) -> None:
        pool_jobs.schedule(self.jobs, self.store)

    def handle(self, op: str, params: dict[str, str], body: Any, raw_query: str = "") -> tuple[int, Any]:
        project, name, s, tm = params["project"], params.get("name", ""), self.store, self.timings
        if op == "order_get":
            return 200, s.get_order(project, name)
        if op == "order_list":
            return 200, _list_orders(s, project, raw_query)
        if op == "pool_create":
            req = parse(CreatePoolBody, body)
            for r in req.spec.resources:
                if r.flavor not in FLAVORS_BY_NAME:
                    raise errors.parameter_error("spec.resources.flavor", f"unknown resource flavor {r.flavor}")
            return 200, s.create_pool(project, req, tm)
        if op == "pool_list":
            return 200, s.list_pools(project)
        if op == "pool_get":
            return 200, s.get_pool(project, name)
        if op == "pool_nodes":
            return 200, s.list_nodes(project, name)
        if op == "pool_update":
            return 200, s.patch_pool(project, name, parse(PatchPoolBody, body), tm)
        if op == "pool_delete":
            return 200, s.delete_pool(project, name, tm)
        if op == "network_create":
            return 200, s.create_network(project, parse(CreateNetworkBody, body), tm)
        if op == "network_list":
            return 200, s.list_networks(project)
        if op == "network_get":
            return 200, s.get_network(project, name)
        if op == "network_update":
            return 200, s.patch_network(project, name, parse(PatchNetworkBody, body), tm)
        if op == "network_delete":
            return 200, s.delete_network(project, name, tm)
        if op == "resource_flavors":
            return 200, {"apiVersion": "v1", "kind": "ResourceFlavorList",
                         "metadata": {"continue": "", "remainingItemCount": 0},
                         "items": [render_flavor(f) for f in RESOURCE_FLAVORS]}
        raise errors.not_found_route(op)  # pragma: no cover - ROUTES covers every op

    # --- jobs on created pools ---------------------------------------------------------------------

    def catalog_for(self, catalog: Catalog, project: str, body: bytes) -> Catalog:
        try:
            req = json.loads(body)
            pool_id = req["spec"]["resource"].get("pool_id")
        except (ValueError, UnicodeDecodeError, KeyError, TypeError, AttributeError):
            return catalog  # validation reports the body's problem
        return pool_jobs.catalog_with_pool(catalog, self.store, project, pool_id if isinstance(pool_id, str) else None)

    def queue_if_on_pool(self, job: dict, on_created_pool: bool) -> dict:
        if not on_created_pool:
            return job
        pool_jobs.enqueue(self.jobs, job["metadata"]["id"], job["spec"]["resource"]["pool_id"])
        return self.jobs.get(job["metadata"]["id"])

    # --- /_emulator controls ---------------------------------------------------------------------------

    def control(self, name: str, method: str, body: Any) -> tuple[int, Any]:
        if name == "pools" and method == "GET":
            return 200, self.store.snapshot()
        if name == "pool-faults" and method == "POST":
            self.store.add_fault(parse(PoolFault, body))
            return 200, {"ok": True}
        raise errors.method_not_allowed(method, f"/_emulator/{name}")


def parse(model: type[M], body: Any) -> M:
    """Validate a body; the first broken rule is a ModelArts.0104 naming its parameter."""
    try:
        return model.model_validate(body if body is not None else {})
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in first["loc"]).replace(".[", "[")
        raise errors.parameter_error(loc or "body", first["msg"]) from None


def _list_orders(store: PoolStore, project: str, raw_query: str) -> dict:
    q = {k: v[-1] for k, v in parse_qs(raw_query).items()}
    try:
        limit, offset = int(q.get("limit", "500")), int(q.get("offset", "0"))
        since = int(q["since"]) if "since" in q else None
    except ValueError:
        raise errors.parameter_error("limit/offset/since", "whole numbers") from None
    if not (1 <= limit <= 500) or offset < 0:
        raise errors.parameter_error("limit", "1-500, offset 0 or more")
    return store.list_orders(project, q.get("involvedName"), since, limit, offset)
