"""A stack config's `secure:` values decrypted as Pulumi's passphrase secrets manager does, without the CLI.

`pulumi config --show-secrets` costs a CLI start (0.2 s) and the key derivation; the tools need it for the
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
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable

ROUNDS = 1_000_000  # Pulumi's passphrase key derivation (pkg/secrets/passphrase)
CHECK = b"pulumi"


# The derivation runs on `cryptography`'s PBKDF2 (OpenSSL's): 0.15 s where hashlib's takes 0.35-0.4 s here, and it
# releases the GIL, so a thread started before the command's imports derives beside them (measured: Python work in
# the main thread ran as fast with the derivation beside it). `cryptography` is what decrypts the values too: without
# it nothing is derived here (the CLI decrypts). Started derivations by (passphrase, salt); the key never leaves
# this process.
class _Derivation(threading.Thread):
    def __init__(self, passphrase: str, salt: bytes) -> None:
        super().__init__(name="passphrase-kdf", daemon=True)
        self._passphrase, self._salt = passphrase, salt
        self.key: bytes | None = None

    def run(self) -> None:
        try:
            self.key = _pbkdf2(self._passphrase, self._salt)
        except Exception:  # noqa: BLE001 - any failure: derived again where it is needed, which raises it there
            self.key = None


_STARTED: dict[tuple[str, bytes], _Derivation] = {}


def _pbkdf2(passphrase: str, salt: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes  # noqa: PLC0415 - only where there is a secret
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC  # noqa: PLC0415

    return PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=salt, iterations=ROUNDS).derive(passphrase.encode())


def derived_key(passphrase: str, salt: bytes) -> bytes:
    """PBKDF2-HMAC-SHA256 of the passphrase over the salt (ROUNDS, 32 bytes): the one start_early began, if any,
    else derived now."""
    started = _STARTED.pop((passphrase, salt), None)
    if started is not None:
        started.join()
        if started.key is not None:
            return started.key
    return _pbkdf2(passphrase, salt)


def _flag(argv: list[str], name: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def start_early(argv: list[str], env: Mapping[str, str]) -> None:
    """Begin the key derivation of the stack named by `--stack` (and `--cwd`) before the command imports its
    modules (they run beside it rather than after it): the salt is read off the stack file's
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
        started = _STARTED[(passphrase, salt)] = _Derivation(passphrase, salt)
        started.start()
    except (OSError, binascii.Error, ValueError, IndexError, RuntimeError):
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
