"""Bucket: an OBS bucket the stack creates (``create: true``) or only uses (``create: false``).

    bucket = Bucket("code-bucket", {"bucket": "my-training-code", "create": True, "force_destroy": False})
    CodeUpload("mnist", {"bucket": bucket.bucket, ...})   # an Output: the upload waits for the bucket

Outputs: ``bucket`` (the name), ``url`` (obs://name/), ``created`` (False when an existing empty
bucket was taken over, or with create: false). Destroy: deleted only with create: true, when
empty or with force_destroy (objects deleted first); create: false buckets are never deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, TypedDict

import pulumi
from pulumi.dynamic import Resource

from ..core.identity import SEED_INPUT
from ..core.marks import stack_label, stack_seed
from .args import OUTPUT_KEYS
from .provider import BucketProvider

__all__ = ["Bucket", "BucketInputs", "PROVIDER"]

PROVIDER = BucketProvider()


class BucketInputs(TypedDict, total=False):
    bucket: pulumi.Input[str]
    create: pulumi.Input[bool]
    force_destroy: pulumi.Input[bool]


class Bucket(Resource, module="modelarts", name="Bucket"):
    bucket: pulumi.Output[str]
    url: pulumi.Output[str]
    created: pulumi.Output[bool]

    def __init__(self, resource_name: str, args: BucketInputs | Mapping[str, Any],
                 opts: Optional[pulumi.ResourceOptions] = None) -> None:
        props: dict[str, Any] = {"create": True, "force_destroy": False, **dict(args)}
        if props.get("owner") is None:  # the token and the mark key come from the stack's seed, in check
            props["owner"] = {"stack": stack_label(), "resource": resource_name}
            props[SEED_INPUT] = stack_seed()
        for key in OUTPUT_KEYS:
            props.setdefault(key, None)
        super().__init__(PROVIDER, resource_name, props, opts)
