"""Kept for states written before the resources moved into their folders: their pickled provider
refers to `modelarts_provider.provider.TrainingJobProvider` by name, so that name must stay."""

from .training_job.provider import TrainingJobProvider

__all__ = ["TrainingJobProvider"]
