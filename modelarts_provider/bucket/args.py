"""Bucket's inputs and outputs (pydantic)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["BucketArgs", "BucketOutputs", "OUTPUT_KEYS"]


class BucketArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    bucket: str
    create: bool = True  # False: an existing bucket, checked at create, never deleted
    force_destroy: bool = False  # destroy deletes the objects first (create: true only)


class BucketOutputs(BaseModel):
    model_config = ConfigDict(frozen=True)

    url: str  # obs://bucket/
    created: bool  # this resource created the bucket (False: it was there, empty, and adopted)


OUTPUT_KEYS = frozenset(BucketOutputs.model_fields)
