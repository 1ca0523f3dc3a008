"""Pydantic models of the small request bodies (search, action, update, IAM, controls).

The create body is validated by validation.py (its rules need the catalog and documented error codes);
these simpler shapes are plain models, and a pydantic failure becomes a ModelArts.2788 that names the
first offending parameter.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from . import errors


class SearchFilter(BaseModel):
    key: Literal["name", "phase", "id"]
    operator: Literal["like", "in"]
    value: list[str] = Field(min_length=1)


class SearchTag(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str = Field(min_length=1, max_length=128)
    values: list[Annotated[str, Field(max_length=255)]] = Field(default_factory=list, max_length=10)


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=10, ge=1, le=50)
    sort_by: Literal["create_time", "name"] = "create_time"
    order: Literal["asc", "desc"] = "desc"
    # SDK JobSearches: a top-level key (not a filter), default "0" (the default workspace)
    workspace_id: str | None = Field(default=None, min_length=1, max_length=64)
    filters: list[SearchFilter] = Field(default_factory=list)
    # SDK JobSearches.tags (ListTagFilter): a key's values OR, keys AND, no values (or only "") = the key alone;
    # at most 10, keys distinct; with tags only jobs created in the last 31 days are listed (the SDK's rule)
    tags: list[SearchTag] = Field(default_factory=list, max_length=10)

    @field_validator("tags")
    @classmethod
    def _distinct_keys(cls, v: list[SearchTag]) -> list[SearchTag]:
        if len({t.key for t in v}) != len(v):
            raise ValueError("a tag key may appear once")
        return v


class Settings(BaseModel):
    """Runtime switches of POST /_emulator/settings (each starts at its command-line value)."""

    model_config = ConfigDict(extra="forbid")
    allow_duplicate_names: bool | None = None
    search_offset: Literal["items", "pages"] | None = None
    search_all_workspaces: bool | None = None
    drop_annotations: bool | None = None


class ClockAdvance(BaseModel):
    """POST /_emulator/clock: move the emulated time forward (never back), and/or pin the gateway's clock
    at an X-Sdk-Date (``gateway_at``; null: back to the wall clock) to replay recorded signed requests."""

    model_config = ConfigDict(extra="forbid")
    advance_seconds: float = Field(default=0, ge=0, allow_inf_nan=False)
    gateway_at: str | None = None

    @model_validator(mode="after")
    def _something(self) -> "ClockAdvance":
        if not self.model_fields_set:
            raise ValueError("set advance_seconds or gateway_at")
        return self


class UpdateRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    description: str = Field(max_length=256)


class FaultRule(BaseModel):
    """One fault-injection rule of POST /_emulator/faults (see ARCHITECTURE.md)."""

    model_config = ConfigDict(extra="forbid")
    operation: Literal["create", "get", "terminate", "delete", "update", "search", "logs", "iam_token",
                       "flavors", "engines", "algorithm",
                       # the search's reads and early stop (auto_search/api.py)
                       "search_algorithms", "autosearch_trials", "autosearch_trial", "autosearch_earlystop",
                       # a job's tags (jobs/tags.py)
                       "tags_get", "tags_create", "tags_delete", "tags_project", "tags_filter", "tags_count",
                       # issue 57's operations: batch delete, the log's link and lines, quotas, the algorithm list
                       "batch_delete", "log_url", "log_lines", "quotas", "algorithms",
                       "any"] = "any"
    kind: Literal["status", "reset", "latency", "drop_after_commit"] = "status"
    status: Literal[404, 429, 500, 502, 503, 504] = 503  # 404: the gateway's APIGW.0101
    retry_after: float = Field(default=1, ge=0)
    latency_ms: float = Field(default=1000, ge=0)
    times: int = Field(default=1, ge=1)


class FaultRules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rules: list[FaultRule] = Field(default_factory=list)


def parse(model: type[BaseModel], body: Any, prefix: str = "") -> Any:
    """Validate ``body`` against ``model``; on failure raise 2788 naming the parameter."""
    try:
        return model.model_validate(body if body is not None else {})
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in first["loc"])
        loc = loc.replace(".[", "[")
        param = f"{prefix}{loc}" if loc else (prefix.rstrip(".") or "body")
        raise errors.invalid_param(param, first["msg"]) from None


def json_body(body: bytes) -> Any:
    """A request body read as JSON; an empty or unreadable one is the service's bad-JSON error."""
    if not body:
        raise errors.bad_json("The request body is empty.")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise errors.bad_json() from None
