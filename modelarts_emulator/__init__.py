"""Local ModelArts: an emulator of the ModelArts v2 training-job API (see README.md)."""

from .config import (DEFAULT_ACCESS_KEY, DEFAULT_IAM_DOMAIN, DEFAULT_IAM_PASSWORD,
                     DEFAULT_IAM_USER, DEFAULT_PORT, DEFAULT_PROJECT_ID, DEFAULT_SECRET_KEY,
                     EmulatorConfig)

__all__ = ["DEFAULT_ACCESS_KEY", "DEFAULT_IAM_DOMAIN", "DEFAULT_IAM_PASSWORD", "DEFAULT_IAM_USER",
           "DEFAULT_PORT", "DEFAULT_PROJECT_ID", "DEFAULT_SECRET_KEY", "EmulatorConfig"]
