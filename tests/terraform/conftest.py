"""The `terraform` tier: tests that run Terraform's official Huawei Cloud provider (built by
scripts/terraform_provider.sh, about 15 minutes, never by ./dev setup). They are deselected unless asked for by name
in a marker expression (`./dev test -m terraform`); asked for, a test fails, not skips, when the provider is not
built: a run that asked for it never passes without running it.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "terraform: runs terraform with the built Huawei Cloud provider "
                                       "(opt-in: ./dev test -m terraform; docs/clients.md)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "terraform" in (config.getoption("markexpr", "") or ""):
        return
    left = [item for item in items if item.get_closest_marker("terraform") is not None]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = [item for item in items if item.get_closest_marker("terraform") is None]
