"""CodeUpload's provider inputs and outputs (pydantic): what the program computed, what create returns.

The program (resource.py) turns the constructor arguments into these inputs, computing the content
hash from the local directory; check/diff/create read them back with ``CodeUploadArgs``.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .manifest import Limits, MiB

__all__ = ["CodeUploadArgs", "CodeUploadOutputs", "OUTPUT_KEYS", "INPUT_NAMES", "PREFIX_RULE",
           "JOB_KEY_RULE"]

PREFIX_RULE = ("segments of letters, digits, '.', '_' and '-' separated by '/', no empty, '.' or '..' "
               "segment, at most 512 characters")
JOB_KEY_RULE = "1-64 characters: letters, digits, '.', '_' and '-', starting with a letter or digit"
_SEGMENT = re.compile(r"^[A-Za-z0-9._-]+\Z")
_JOB_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
_SHA256 = re.compile(r"^[0-9a-f]{64}\Z")

# provider field -> the constructor argument users wrote (messages name the latter)
INPUT_NAMES = {"boot_file_path": "boot_file", "source_path": "local_dir"}


class CodeUploadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    local_dir: str = Field(min_length=1)  # as written in the program (shown in messages)
    source_path: str = Field(min_length=1)  # absolute: the provider process reads the files there
    bucket: str
    prefix: str = "code"
    job_key: str
    boot_file_path: str = Field(min_length=1)
    excludes: list[str] = []
    max_total_bytes: int = Field(default=Limits().max_total_bytes, ge=1, le=5 * 1024 * MiB)
    max_files: int = Field(default=Limits().max_files, ge=1, le=100_000)
    parallelism: int = Field(default=8, ge=1, le=32)  # threads; the client pools 32 connections
    # this resource's RandomId (layout.py): part of the prefix; None for uploads made before it existed
    owner_token: str | None = Field(None, pattern=r"^[0-9a-f]{16,64}$")
    # computed by the program; None when it could not read the directory (check says why)
    content_hash: str | None = None
    file_count: int | None = None
    total_bytes: int | None = None

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        v = v.strip("/")
        if v and (len(v) > 512 or any(s in ("", ".", "..") or not _SEGMENT.match(s) for s in v.split("/"))):
            raise ValueError(f"{v!r} is not a valid OBS key prefix: {PREFIX_RULE}")
        return v

    @field_validator("job_key")
    @classmethod
    def _job_key(cls, v: str) -> str:
        if not _JOB_KEY.match(v):
            raise ValueError(f"{v!r} is not a valid job key: {JOB_KEY_RULE}")
        return v

    @field_validator("content_hash")
    @classmethod
    def _hash(cls, v: str | None) -> str | None:
        if v is not None and not _SHA256.match(v):
            raise ValueError("must be a sha256 hex digest (computed by the program)")
        return v

    @property
    def limits(self) -> Limits:
        return Limits(max_total_bytes=self.max_total_bytes, max_files=self.max_files)


class CodeUploadOutputs(BaseModel):
    """What create returns beside the inputs; only ever returned after the completion marker."""

    model_config = ConfigDict(frozen=True)

    code_dir: str = Field(description=(
        "obs://bucket/prefix/job_key/<owner token>/<hash16>/ (for algorithm.code_dir)."))
    boot_file: str = Field(description=(
        "The boot file's OBS URL (for algorithm.boot_file)."))
    marker_key: str = Field(description="The completion marker's key: written last, removed first.")
    uploaded_files: int = Field(description="Files uploaded by the last create.")
    skipped_files: int = Field(description="Files already in OBS with the same content.")


OUTPUT_KEYS = frozenset(CodeUploadOutputs.model_fields)
