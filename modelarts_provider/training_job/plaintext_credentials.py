"""A credential in a job's `environments` that is not a secret: a warning, never a refusal (issue 44).

`HF_TOKEN: hf_...` written in plain text is accepted by the service and works; but a value that is not a Pulumi
secret is stored as it is, in the state's inputs and outputs of the job, and in the stack file. Masking keeps it
out of what is printed, not out of the state. So check() warns, once per place it was declared in a provider
process (a sweep's 1,000 points share one `environments`), naming the key and `pulumi config set --secret`,
and never the value. Both doors: the stack program records where the job was declared (`config_keys`) and which
input paths are secrets (`secret_paths`), the plugin records the secret paths of its inputs.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from typing import Any

from ..core.masking import secret_looking, secret_material

ENV_PATH = "algorithm.environments"
# Token shapes whatever the variable is called: Hugging Face, GitHub, GitLab, OpenAI-style, AWS access keys, Slack.
TOKEN_SHAPES = re.compile(r"^(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,}"
                          r"|sk-[\w-]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[\w-]{10,})$")

_WARNED: set[str] = set()
_WARNED_LOCK = threading.Lock()


def looks_like_credential(name: str, value: Any) -> bool:
    """A secret-looking name (HF_TOKEN, DB_PASSWORD) holding secret material, or a known token shape."""
    if not isinstance(value, str):
        return False
    return bool(TOKEN_SHAPES.match(value.strip())) or (secret_looking(name) and secret_material(value))


def _is_secret(path: str, secret_paths: Any) -> bool:
    paths = [p for p in secret_paths if isinstance(p, str)] if isinstance(secret_paths, list) else []
    return any(path == p or path.startswith(p + ".") for p in paths)


def warnings(news: Mapping[str, Any]) -> list[str]:
    """One warning line per plaintext credential of the job's environments (the value never shown)."""
    algorithm = news.get("algorithm") if isinstance(news.get("algorithm"), Mapping) else {}
    env = algorithm.get("environments") if isinstance(algorithm.get("environments"), Mapping) else {}
    keys = news.get("config_keys") if isinstance(news.get("config_keys"), Mapping) else {}
    declared = keys.get(ENV_PATH)
    out = []
    for name, value in env.items():
        path = f"{ENV_PATH}.{name}"
        if _is_secret(path, news.get("secret_paths")) or not looks_like_credential(str(name), value):
            continue
        if isinstance(declared, str):
            out.append(f"warning: {declared}.{name} looks like a credential but is not a secret: it is stored in "
                       f"plain text in the state; make it one: pulumi config set --secret --path "
                       f"'{declared}.{name}' <value>")
        else:
            out.append(f"warning: {path} looks like a credential but is not a secret: it is stored in plain text "
                       "in the state; keep it in the stack config with pulumi config set --secret and pass that "
                       "secret in")
    return out


def warn_once(news: Mapping[str, Any], say: Any) -> None:
    """say() each warning the first time this process meets it."""
    for line in warnings(news):
        with _WARNED_LOCK:
            if line in _WARNED:
                continue
            _WARNED.add(line)
        say(line)
