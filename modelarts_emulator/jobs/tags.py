"""Training-job tags (TMS tags), in the official SDK's shapes and paths (huaweicloudsdkmodelarts 3.1.219,
v1/modelarts_client.py and its models; the API pages in docs/assumptions.md say where they are silent):

- `GET    /v2/{project}/modelarts-training-job/{id}/tags`          ShowTrainJobTags   -> {"tags": [TmsTag]}
- `POST   /v2/{project}/modelarts-training-job/{id}/tags/create`   CreateTrainJobTags {"tags": [TmsTag]}
  (a key already on the job takes the new value) -> 204, no body: the API page documents status 204 (its
  table of a `tags` body cannot travel in a 204, which HTTP gives no body), and Terraform's provider refuses
  any other code. The SDK's CreateTrainJobTagsResponse (`tags`) is then empty; a client reads the tags back
  with ShowTrainJobTags
- `DELETE /v2/{project}/modelarts-training-job/{id}/tags/delete`   DeleteTrainJobTags {"tags": [{key, value?}]}
  (by key; a given value must match) -> 204
- `GET    /v2/{project}/modelarts-training-job/tags`               ListTrainingJobTags -> {"tags": [ProjectTag]}
  (every key used in the project with its distinct values)
- `POST   /v2/{project}/modelarts-training-job/resource-instances/filter?limit&offset`  ListTrainingJobsByTags
  ResourceInstancesFilterReq {workspace_id, tags: [{key, values}], without_any_tag, matches: [{key:
  resource_name, value}]} -> {"resources": [ResourceInstance], "total_count"}; values of one key OR, keys AND,
  no values: the key alone; limit 1-1000 (default 1000), offset counts jobs
- `POST   .../resource-instances/count`                           CountTrainingJobsByTags -> {"total_count"}

The create API (`Job.metadata`) has no tags field: tags are set on a job after it exists. A job's tags are kept
in its stored document and are not part of its GET/list response (the SDK's JobResponse has none).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .. import errors
from .models import Store
from ..routes import operations, routes
from .query import int_param

MAX_TAGS = 20  # per job: TMS's limit per resource (assumed: the SDK pages do not say)
# TmsTag: key 1-128 letters (any language), digits, spaces and _ . : = + - @, no spaces at either end, not
# _sys_...; value 0-255 of the same and '/'.
KEY_RE = re.compile(r"[\w .:=+\-@]{1,128}\Z", re.UNICODE)
VALUE_RE = re.compile(r"[\w .:/=+\-@]{0,255}\Z", re.UNICODE)

ROUTES = routes("""
    GET     /v2/{project}/modelarts-training-job/tags                           tags_project
    POST    /v2/{project}/modelarts-training-job/resource-instances/filter      tags_filter
    POST    /v2/{project}/modelarts-training-job/resource-instances/count       tags_count
    GET     /v2/{project}/modelarts-training-job/{job}/tags                     tags_get
    POST    /v2/{project}/modelarts-training-job/{job}/tags/create              tags_create
    DELETE  /v2/{project}/modelarts-training-job/{job}/tags/delete              tags_delete
""")
OPERATIONS = operations(ROUTES)

class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TmsTag(_Model):
    key: str
    value: str = ""


class TagsBody(_Model):
    tags: list[TmsTag] = Field(min_length=1, max_length=MAX_TAGS)


class DeleteTag(_Model):
    key: str
    value: str | None = None


class DeleteBody(_Model):
    tags: list[DeleteTag] = Field(min_length=1, max_length=MAX_TAGS)


class MultiValueTag(_Model):
    key: str
    values: list[str] = Field(default_factory=list, max_length=10)


class Match(_Model):
    key: str
    value: str = Field(min_length=1, max_length=255)


class FilterBody(_Model):
    workspace_id: str | None = None
    tags: list[MultiValueTag] = Field(default_factory=list, max_length=10)
    without_any_tag: bool = False
    matches: list[Match] = Field(default_factory=list, max_length=1)


def _check_key(key: str) -> None:
    if not KEY_RE.match(key) or key != key.strip() or key.startswith("_sys_"):
        raise errors.invalid_param("tags.key", f"{key!r}: 1-128 letters, digits, spaces and _ . : = + - @, "
                                                "no space at either end, not starting with _sys_")


def _check_value(value: str) -> None:
    if not VALUE_RE.match(value):
        raise errors.invalid_param("tags.value", f"{value!r}: 0-255 letters, digits, spaces and _ . : / = + - @")


def _parse(model: type[BaseModel], body: Any) -> Any:
    try:
        return model.model_validate(body)
    except ValueError as exc:
        first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": (), "msg": str(exc)}  # type: ignore[attr-defined]
        where = ".".join(str(p) for p in first.get("loc", ())) or "body"
        raise errors.invalid_param(where, str(first.get("msg", "invalid"))) from None


def tags_of(doc: dict[str, Any]) -> list[dict[str, str]]:
    return list(doc.get("tags") or [])


class TagApi:
    def __init__(self, store: Store) -> None:
        self.store = store

    def handle(self, op: str, params: dict[str, str], query: dict[str, str], body: Any) -> tuple[int, Any]:
        if op == "tags_get":
            return 200, {"tags": tags_of(self.store.row(params["job"]).doc)}
        if op == "tags_create":
            req = _parse(TagsBody, body)
            for t in req.tags:
                _check_key(t.key)
                _check_value(t.value)
            if len({t.key for t in req.tags}) != len(req.tags):
                raise errors.invalid_param("tags", "a key may appear once")

            def put(doc: dict[str, Any]) -> None:
                merged = {t["key"]: t["value"] for t in tags_of(doc)}
                merged.update({t.key: t.value for t in req.tags})
                if len(merged) > MAX_TAGS:
                    raise errors.invalid_param("tags", f"a training job holds at most {MAX_TAGS} tags")
                doc["tags"] = [{"key": k, "value": v} for k, v in merged.items()]

            self.store.update_doc(params["job"], put)
            return 204, None  # CreateTrainJobTags' documented status (see the module's docstring)
        if op == "tags_delete":
            dreq = _parse(DeleteBody, body)

            def drop(doc: dict[str, Any]) -> None:
                doc["tags"] = [t for t in tags_of(doc) if not any(
                    d.key == t["key"] and d.value in (None, t["value"]) for d in dreq.tags)]

            self.store.update_doc(params["job"], drop)
            return 204, None
        if op == "tags_project":
            seen: dict[str, list[str]] = {}
            for row in self.store.all_rows():
                for t in tags_of(row.doc):
                    values = seen.setdefault(t["key"], [])
                    if t["value"] not in values:
                        values.append(t["value"])
            return 200, {"tags": [{"key": k, "values": v} for k, v in seen.items()]}
        if op in ("tags_filter", "tags_count"):
            freq = _parse(FilterBody, body if body is not None else {})
            found = self._filter(freq)
            if op == "tags_count":
                return 200, {"total_count": len(found)}
            limit, offset = int_param(query, "limit", 1000, 1, 1000), int_param(query, "offset", 0, 0, None)
            return 200, {"resources": found[offset:offset + limit], "total_count": len(found)}
        raise AssertionError(op)  # pragma: no cover - ROUTES lists every op

    def _filter(self, req: FilterBody) -> list[dict[str, Any]]:
        for m in req.matches:
            if m.key != "resource_name":
                raise errors.invalid_param("matches.key", "must be resource_name")
        out = []
        t = self.store.now()
        for row in self.store.all_rows():
            job = row.render(t)
            meta = job["metadata"]
            if (req.workspace_id or "0") != (meta.get("workspace_id") or "0"):
                continue
            tags = tags_of(row.doc)
            have = {x["key"]: x["value"] for x in tags}
            if req.without_any_tag:
                if tags:
                    continue
            elif not all(f.key in have and (not f.values or have[f.key] in f.values) for f in req.tags):
                continue
            if req.matches and req.matches[0].value not in (meta.get("name") or ""):
                continue
            out.append({"resource_detail": {}, "workspace_id": meta.get("workspace_id") or "0",
                        "resource_id": meta["id"], "resource_name": meta.get("name"), "tags": tags})
        return out
