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
from collections.abc import Mapping
from typing import Any, Callable

ROUNDS = 1_000_000  # Pulumi's passphrase key derivation (pkg/secrets/passphrase)
CHECK = b"pulumi"


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
        key = AESGCM(hashlib.pbkdf2_hmac("sha256", passphrase.encode(), base64.b64decode(salt_b64), ROUNDS, 32))
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
