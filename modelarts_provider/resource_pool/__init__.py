"""The ResourcePool resource: a dedicated ModelArts resource pool (billed per node-hour) the stack creates."""

from .resource import ResourcePool

__all__ = ["ResourcePool"]
