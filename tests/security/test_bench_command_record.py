"""The command line a benchmark records in results.md masks the secrets handed to the engine with --pulumi-env
(a state bucket's secret key, a passphrase); everything else is recorded as typed."""

from __future__ import annotations

from benchmarks.__main__ import recorded_command
from modelarts_provider.core.masking import MASK


def test_secret_looking_pulumi_env_values_are_masked() -> None:
    url = "PULUMI_BACKEND_URL=s3://state?endpoint=http://127.0.0.1:8781&region=cn-north-4"
    args = ["--sizes", "300", "--pulumi-env", url,
            "--pulumi-env", "AWS_SECRET_ACCESS_KEY=emulator-local-secret-key",
            "--pulumi-env=PULUMI_CONFIG_PASSPHRASE=hunter2", "--pulumi-env", "PULUMI_SKIP_CHECKPOINTS=true"]
    recorded = recorded_command(args)
    assert recorded == " ".join(["./dev bench", "--sizes", "300", "--pulumi-env", url,
                                 "--pulumi-env", f"AWS_SECRET_ACCESS_KEY={MASK}",
                                 f"--pulumi-env=PULUMI_CONFIG_PASSPHRASE={MASK}",
                                 "--pulumi-env", "PULUMI_SKIP_CHECKPOINTS=true"])
    assert "hunter2" not in recorded and "emulator-local-secret-key" not in recorded


def test_a_command_without_arguments_is_recorded_as_typed() -> None:
    assert recorded_command([]) == "./dev bench"
