"""A stack config's `secure:` values decrypted as Pulumi's passphrase secrets manager does, without the CLI.

`pulumi config --show-secrets` costs a CLI start (0.2 s) and the key derivation (0.3 s); the tools need it for the
client's credentials on every `logs`, `status` and `outputs`. The scheme (Pulumi's `passphrase` secrets manager,
"v1"): the stack file's `encryptionsalt: v1:<salt>:<check>` gives the salt; the key is PBKDF2-HMAC-SHA256 of
PULUMI_CONFIG_PASSPHRASE over it, 1,000,000 rounds, 32 bytes; each value is `v1:<nonce>:<AES-256-GCM ciphertext
and tag>` (base64), and `<check>` must decrypt to `pulumi`. Anything else returns None and the CLI decrypts
(another secrets provider, a passphrase file, a wrong passphrase: the CLI says what is wrong), as it does where
the `cryptography` package is not installed (a test and development dependency here).
Decrypted values are returned to the caller only: never printed, logged or kept.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable

ROUNDS = 1_000_000  # Pulumi's passphrase key derivation (pkg/secrets/passphrase)
CHECK = b"pulumi"


# The derivation in a child Python: hashlib's PBKDF2 holds the GIL for its 0.3 s (measured: a thread running it
# beside the command's imports took as long as both in turn), a child runs it on another core meanwhile. The
# passphrase goes in on stdin, never in its arguments (which `ps` shows).
_DERIVE = ("import base64, hashlib, json, sys; a = json.load(sys.stdin); sys.stdout.write(hashlib.pbkdf2_hmac("
           "'sha256', a['p'].encode(), base64.b64decode(a['s']), a['n'], 32).hex())")


# Derivations started before the command imported anything (start_early), by (passphrase, salt).
_STARTED: dict[tuple[str, bytes], subprocess.Popen[str]] = {}


def _derive_in_child(passphrase: str, salt: bytes) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _DERIVE], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"p": passphrase, "s": base64.b64encode(salt).decode(), "n": ROUNDS}))
    proc.stdin.close()
    return proc


def derived_key(passphrase: str, salt: bytes) -> bytes:
    """PBKDF2-HMAC-SHA256 of the passphrase over the salt (ROUNDS, 32 bytes), from a child Python (_DERIVE; the one
    start_early began, if any); here when no child can run."""
    try:
        proc = _STARTED.pop((passphrase, salt), None) or _derive_in_child(passphrase, salt)
        assert proc.stdout is not None
        out = proc.stdout.read()  # (not communicate(): it flushes the stdin closed once the passphrase was sent)
        if proc.wait(timeout=60) == 0 and len(out) == 64:
            return bytes.fromhex(out)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        pass
    return hashlib.pbkdf2_hmac("sha256", passphrase.encode(), salt, ROUNDS, 32)


def _flag(argv: list[str], name: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def start_early(argv: list[str], env: Mapping[str, str]) -> None:
    """Begin the key derivation of the stack named by `--stack` (and `--cwd`) before the command imports its
    modules (a quarter of a second it no longer waits for): the salt is read off the stack file's
    `encryptionsalt` line, no YAML parser loaded. Anything unexpected starts nothing (crypter derives later)."""
    stack, passphrase = _flag(argv, "--stack"), env.get("PULUMI_CONFIG_PASSPHRASE")
    if not stack or not passphrase:
        return
    cwd = Path(_flag(argv, "--cwd") or ".")
    try:
        project = (cwd / "Pulumi.yaml").read_text()
        where = re.search(r"^stackConfigDir:\s*[\"']?([^\"'\s#]+)", project, re.M)
        stack_file = cwd / (where.group(1) if where else ".") / f"Pulumi.{stack.rsplit('/', 1)[-1]}.yaml"
        salt_line = re.search(r"^encryptionsalt:\s*(\S+)", stack_file.read_text(), re.M)
        if salt_line is None or not salt_line.group(1).startswith("v1:"):
            return
        salt = base64.b64decode(salt_line.group(1).split(":")[1])
        _STARTED[(passphrase, salt)] = _derive_in_child(passphrase, salt)
    except (OSError, binascii.Error, ValueError, IndexError):
        return


def crypter(salt_line: Any, env: Mapping[str, str]) -> Callable[[str], str] | None:
    """A decrypter of `v1:` values for the stack whose `encryptionsalt` is `salt_line`, or None (the CLI's job)."""
    passphrase = env.get("PULUMI_CONFIG_PASSPHRASE")
    if not isinstance(salt_line, str) or not passphrase:
        return None
    version, _, rest = salt_line.partition(":")
    salt_b64, _, check = rest.partition(":")
    try:
        from cryptography.exceptions import InvalidTag  # noqa: PLC0415 - only where there is a secret
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: PLC0415

        if version != "v1":
            return None
        key = AESGCM(derived_key(passphrase, base64.b64decode(salt_b64)))
    except (ImportError, binascii.Error, ValueError):
        return None

    def decrypt(value: str) -> str:
        version, _, rest = value.partition(":")
        nonce, _, sealed = rest.partition(":")
        if version != "v1":
            raise ValueError("not a v1 ciphertext")
        return key.decrypt(base64.b64decode(nonce), base64.b64decode(sealed), None).decode()

    try:
        return decrypt if decrypt(check).encode() == CHECK else None
    except (InvalidTag, binascii.Error, ValueError, UnicodeDecodeError):
        return None  # a wrong passphrase: the CLI's message names it


def revealed(node: Any, decrypt: Callable[[str], str]) -> Any:
    """`node` with each `{secure: ...}` replaced by its plaintext (raises ValueError on one that does not decrypt)."""
    if isinstance(node, dict):
        if set(node) == {"secure"}:
            try:
                return decrypt(str(node["secure"]))
            except Exception as err:  # noqa: BLE001 - InvalidTag and decoding errors alike: the CLI's turn
                raise ValueError("a secure value does not decrypt") from err
        return {k: revealed(v, decrypt) for k, v in node.items()}
    if isinstance(node, list):
        return [revealed(v, decrypt) for v in node]
    return node
