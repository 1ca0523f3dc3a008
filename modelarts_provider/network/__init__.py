"""The Network resource: a ModelArts network that dedicated resource pools are created in."""

from .resource import Network

__all__ = ["Network"]
