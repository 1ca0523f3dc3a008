"""The clouds' table (client/clouds.py) is what the client, OBS and the provider read: each of them answers
from it, and the provider and OBS tell the same cloud from the same settings."""

from __future__ import annotations

import pytest

from modelarts_provider.client.clouds import CLOUDS, COMMON_ENV, default_cloud, env_names
from modelarts_provider.client.endpoints import iam_endpoint, modelarts_endpoint
from modelarts_provider.core.provider_config import ENV_FALLBACKS, resolve_settings
from modelarts_provider.obs.endpoints import obs_endpoint
from modelarts_provider.obs.settings import resolve_obs_settings
from modelarts_provider.training_job.outputs import console_url


@pytest.mark.parametrize("cloud", sorted(CLOUDS))
def test_every_reader_answers_from_the_table(cloud: str) -> None:
    entry = CLOUDS[cloud]
    for region in ("xx-test-9", *entry.regions):
        assert modelarts_endpoint(cloud, region) == entry.endpoint("modelarts", region)
        assert iam_endpoint(cloud, region) == entry.endpoint("iam", region)
        assert obs_endpoint(cloud, region) == entry.endpoint("obs", region)
    assert modelarts_endpoint(cloud, "xx-test-9") == entry.endpoints["modelarts"].replace("{region}", "xx-test-9")
    assert console_url(cloud, "xx-test-9", "j1").startswith(entry.console + "/modelarts/?region=xx-test-9#")


def test_the_provider_settings_read_every_clouds_environment_names() -> None:
    names = {n for c in CLOUDS.values() for ns in c.env.values() for n in ns} | {
        n for ns in COMMON_ENV.values() for n in ns}
    assert {n for ns in ENV_FALLBACKS.values() for n in ns} == names
    assert env_names("iamDomain") == ("HW_DOMAIN_NAME", "OS_DOMAIN_NAME", "OS_USER_DOMAIN_NAME")


@pytest.mark.parametrize(("region", "env", "cloud"), [
    ("cn-north-4", {"HW_ACCESS_KEY": "AK", "HW_SECRET_KEY": "SK"}, "huaweicloud"),
    ("eu-de", {"HW_ACCESS_KEY": "AK", "HW_SECRET_KEY": "SK"}, "otc"),  # the region tells
    ("eu-west-101", {"HW_ACCESS_KEY": "AK", "HW_SECRET_KEY": "SK"}, "huaweicloud"),  # Huawei Cloud Europe
    ("cn-north-4", {"OS_ACCESS_KEY": "AK", "OS_SECRET_KEY": "SK"}, "otc"),  # the credentials' names tell
    # AK/SK of Huawei Cloud's names, an IAM user of OpenStack's: both readers tell the same cloud
    ("cn-north-4", {"HW_ACCESS_KEY": "AK", "HW_SECRET_KEY": "SK", "OS_USERNAME": "u"}, "otc"),
])
def test_the_provider_and_obs_tell_the_same_cloud(region: str, env: dict[str, str], cloud: str) -> None:
    config = {"region": region, "projectId": "p"}
    assert resolve_settings(config.get, env).cloud == cloud
    assert resolve_obs_settings(config.get, env).cloud == cloud
    assert default_cloud(region, env) == cloud
