from pathlib import Path
from typing import Any
from tests.e2e.test_training_jobs import emu, job, make_stack, stack_config, FINISH  # noqa: F401

import pytest
@pytest.mark.engine
def test_scratch(tmp_path: Path, emu: Any) -> None:
    jobs = {"mnist": job(pool="gpu", environments={"HF_TOKEN": "hf_" + "abcd1234" * 4})}
    st = make_stack(tmp_path, emu, jobs)
    p = st.preview(check=False)
    print("=== PREVIEW1", p.stdout, p.stderr)
    cfg = stack_config({"mnist": job(pool="gpu", codeDir="obs://emulator-bucket/code/", bootFile="t.py", algorithmId=None, engine={"name": "Pytorch", "version": "x"})})
    st.write_config(cfg)
    p = st.preview(check=False)
    print("=== PREVIEW2", p.stdout, p.stderr)
