"""The catalog read APIs, in the official SDK's response shapes (huaweicloudsdkmodelarts v1):

- ``GET /v2/{project_id}/training-job-flavors[?flavor_type=CPU|GPU|Ascend]`` -> ShowTrainingJobFlavorsResponse
  ``{"total_count", "flavors": [FlavorResponseWithSupport]}``: the public flavors only (a dedicated pool's
  flavors are the pool's, not the public list's);
- ``GET /v2/{project_id}/training-job-engines`` -> ShowTrainingJobEnginesResponse ``{"total", "items":
  [ListEnginesItems]}``;
- ``GET /v2/{project_id}/algorithms/{algorithm_id}`` -> ShowAlgorithmByUuidResponse ``{"metadata",
  "job_config", "resource_requirements", "advanced_config"}``; an unknown id is the service's documented
  "algorithm not found" (ModelArts.2755);
- ``GET /v2/{project_id}/algorithms?offset&limit&sort_by&order&searches`` -> ListAlgorithmsResponse ``{"total",
  "count", "limit", "offset", "sort_by", "order", "group_by", "items": [AlgorithmResponse]}``: the catalog's
  algorithms, each as its details answer it. ``offset`` counts algorithms ("set to 1, the query starts from the
  second one"), ``limit`` 1-50 (no documented default: 10, the job list's), ``order`` asc|desc (default desc),
  ``sort_by`` create_time (default; the catalog's order) or name; ``searches`` "fuzzy match by the algorithm
  name" in a format the pages do not give: taken as a case-insensitive part of the name, after an optional
  ``name:``. ``total`` counts every algorithm, ``count`` those matching.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from .. import errors
from ..jobs.query import int_param, query_params
from ..routes import operations, routes
from .model import Algorithm, Catalog, Engine, Flavor

# Each read counted as its own operation.
ROUTES = routes("""
    GET  /v2/{project}/training-job-flavors     flavors
    GET  /v2/{project}/training-job-engines     engines
    GET  /v2/{project}/algorithms               algorithms
    GET  /v2/{project}/algorithms/{algorithm}   algorithm
""")
OPERATIONS = operations(ROUTES)
FLAVOR_TYPES = ("CPU", "GPU", "Ascend")


def handle(catalog: Catalog, op: str, params: dict[str, str], raw_query: str) -> tuple[int, Any]:
    if op == "flavors":
        return 200, flavors(catalog, raw_query)
    if op == "engines":
        return 200, engines(catalog)
    if op == "algorithms":
        return 200, algorithms(catalog, raw_query)
    if op == "algorithm":
        return 200, algorithm(catalog, params["algorithm"])
    raise AssertionError(op)  # pragma: no cover - ROUTES lists every op


def _flavor(f: Flavor) -> dict[str, Any]:
    extra = {k: v for k, v in (f.model_extra or {}).items()}
    out: dict[str, Any] = {"flavor_id": f.flavor_id, "flavor_name": f.flavor_name, "max_num": f.max_num,
                           "flavor_type": f.flavor_type, "billing": f.billing,
                           "flavor_info": {"max_num": f.max_num, **f.flavor_info}, **extra}
    if f.attributes:
        out["attributes"] = f.attributes
    return out


def flavors(catalog: Catalog, raw_query: str) -> dict[str, Any]:
    wanted = (parse_qs(raw_query).get("flavor_type") or [None])[0]
    if wanted is not None and wanted not in FLAVOR_TYPES:
        raise errors.invalid_param("flavor_type", f"must be one of {', '.join(FLAVOR_TYPES)}")
    items = [_flavor(f) for f in catalog.flavors.values()
             if not f.dedicated and (wanted is None or f.flavor_type == wanted)]
    return {"total_count": len(items), "flavors": items}


def _engine(e: Engine) -> dict[str, Any]:
    return {"engine_id": e.engine_id, "engine_name": e.engine_name, "engine_version": e.engine_version,
            "v1_compatible": e.v1_compatible, "run_user": e.run_user, **(e.model_extra or {})}


def engines(catalog: Catalog) -> dict[str, Any]:
    items = [_engine(e) for e in catalog.engines.values()]
    return {"total": len(items), "items": items}


def algorithm(catalog: Catalog, algorithm_id: str) -> dict[str, Any]:
    found: Algorithm | None = catalog.algorithms.get(algorithm_id)
    if found is None:
        raise errors.algorithm_not_found()
    return _algorithm(catalog, found)


ALGORITHM_LIMIT_DEFAULT = 10
ALGORITHM_LIMIT_MAX = 50


def algorithms(catalog: Catalog, raw_query: str) -> dict[str, Any]:
    query = query_params(raw_query)
    offset = int_param(query, "offset", 0, 0, None)
    limit = int_param(query, "limit", ALGORITHM_LIMIT_DEFAULT, 1, ALGORITHM_LIMIT_MAX)
    order = query.get("order") or "desc"
    sort_by = query.get("sort_by") or "create_time"
    if order not in ("asc", "desc"):
        raise errors.invalid_param("order", f"must be asc or desc, not {order!r}")
    if sort_by not in ("create_time", "name"):
        raise errors.invalid_param("sort_by", f"must be create_time or name, not {sort_by!r}")
    search = (query.get("searches") or "").lower()
    search = search[len("name:"):] if search.startswith("name:") else search
    every = list(catalog.algorithms.values())
    found = [a for a in every if search in a.name.lower()]
    if sort_by == "name":
        found.sort(key=lambda a: a.name)
    if order == "desc":  # the catalog's order stands for creation order
        found.reverse()
    return {"total": len(every), "count": len(found), "limit": limit, "offset": offset, "sort_by": sort_by,
            "order": order, "group_by": query.get("group_by") or "",
            "items": [_algorithm(catalog, a) for a in found[offset:offset + limit]]}


def _algorithm(catalog: Catalog, found: Algorithm) -> dict[str, Any]:
    engine = catalog.engines.get(found.engine_id)
    job_config: dict[str, Any] = {
        "code_dir": found.code_dir, "boot_file": found.boot_file,
        "parameters": [{"name": p.name, "value": p.value, "description": p.description,
                        "constraint": {"type": p.type, "editable": p.editable, "required": p.required}}
                       for p in found.parameters],
        "inputs": [], "outputs": [], "parameters_customization": True,
    }
    if engine is not None:
        job_config["engine"] = {"engine_id": engine.engine_id, "engine_name": engine.engine_name,
                                "engine_version": engine.engine_version}
    return {"metadata": {"id": found.id, "name": found.name, "description": "", "workspace_id": "0",
                         "source": "custom", "api_version": "v2", "is_valid": True, "state": "done"},
            "job_config": job_config, "resource_requirements": [], "advanced_config": {}}
