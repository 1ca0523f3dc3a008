"""Fixtures: one emulator subprocess per module, reset before each test (jobs, and the clock).

Its phases last far longer than a test (HELD): a test moves a job on with ``api.advance(seconds)``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from huaweicloudsdkcore.auth.credentials import BasicCredentials
from huaweicloudsdkcore.http.http_config import HttpConfig
from huaweicloudsdkmodelarts.v1 import ModelArtsClient

from modelarts_emulator.testing import RunningEmulator
from modelarts_provider.client import ModelArtsClient as ProductClient
from tests.emulator.helpers import Api, product_client

# `module_emu` and `emu` (one emulator per module, HELD times, reset per test) come from tests/conftest.py.


@pytest.fixture
def api(emu: RunningEmulator) -> Api:
    return Api(emu)


@pytest.fixture
def sdk(emu: RunningEmulator) -> ModelArtsClient:
    """The official SDK's v1 client (pools, networks) signed with the emulator's AK/SK."""
    config = HttpConfig.get_default_config()
    config.ignore_ssl_verification = True
    return (ModelArtsClient.new_builder()
            .with_credentials(BasicCredentials(emu.access_key, emu.secret_key, emu.project_id))
            .with_endpoint(emu.url).with_http_config(config).build())


@pytest.fixture
def client(emu: RunningEmulator) -> Iterator[ProductClient]:
    """The product's own client on the module's emulator."""
    with product_client(emu) as c:
        yield c
