"""Owner tokens and derived job names from one secret seed per stack, instead of two random resources per job.

The seed is random (32 bytes as hex, or 48 letters and digits) recorded once per stack before any job is submitted: on the Python program's
path a stack-level pulumi-random RandomPassword (secret), on the provider plugin's path a secret input of the
provider itself, minted by its CheckConfig (the engine records the provider before any resource using it).
Everything else is derived from it in the provider's check, so it is in the job's state before the POST and
the same again after a killed `up`:

- the owner token of a resource: HMAC(seed, resource name); the same across edits and replacements (like the
  RandomId it replaces), so every job of the resource left by any killed `up` is found by it;
- the suffix of a derived job name: HMAC(seed, resource name, hash of the job's spec), so a new name for each
  replacement (a new spec), the same name for a replacement that was killed and is tried again. (Not a
  replacement counter from the state: the engine checks a replacement's inputs again without the old ones.)
  A replacement of the same spec (`pulumi up --replace`, a taint) whose predecessor's job the state still holds
  takes the next generation: HMAC(seed, resource name, spec hash, generation).

A token already in the state is kept (stacks made when the token was a RandomId keep theirs).

- the mark key of the stack: HMAC(seed, "owner-mark-key"), recorded (a secret) in each resource's state so that a
  delete, which sees only the state, can prove a live object ours; the proof an object carries is
  HMAC(mark key, kind, the object's name, project/stack) (core/ownership.py): a tag or label copied onto another
  object, a copied stack under another name, a same-named stack with another seed: none of them verifies.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re

SEED_INPUT = "owner_seed"  # the input that hands a resource's check the stack's seed (never recorded)
SEED_BYTES = 32
SEED_RE = re.compile(r"[0-9A-Za-z]{32,128}\Z")  # a RandomPassword without specials, or hex
TOKEN_LENGTH = 16  # hex characters, as the RandomId(byte_length=8) tokens before
SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
SUFFIX_LENGTH = 6


def new_seed() -> str:
    return os.urandom(SEED_BYTES).hex()


def is_seed(value: object) -> bool:
    return isinstance(value, str) and bool(SEED_RE.match(value))


def _mac(seed: str, *parts: str) -> bytes:
    return hmac.new(seed.encode(), "\0".join(parts).encode(), hashlib.sha256).digest()


def token_for(seed: str, resource: str) -> str:
    """The owner token of the resource named `resource` in the stack of `seed`."""
    return _mac(seed, "owner-token", resource).hex()[:TOKEN_LENGTH]


MARK_KEY_RE = re.compile(r"[0-9a-f]{64}\Z")
PROOF_LENGTH = 32  # hex characters: 128 bits of the MAC


def mark_key(seed: str) -> str:
    """The stack's mark key (module docstring): the seed itself is never recorded with a resource."""
    return _mac(seed, "owner-mark-key").hex()


def is_mark_key(value: object) -> bool:
    return isinstance(value, str) and bool(MARK_KEY_RE.match(value))


def proof_for(key: str, kind: str, name: str, stack: str) -> str:
    """The mark an object of `kind` named `name` carries when the stack `stack` (project/stack) of mark key `key`
    made it: bound to what the service returns about it and to the stack's identity."""
    return hmac.new(bytes.fromhex(key), "\0".join(("owner-proof", kind, name, stack)).encode(),
                    hashlib.sha256).hexdigest()[:PROOF_LENGTH]


def suffix_for(seed: str, resource: str, spec: str, generation: int = 0) -> str:
    """The derived name's suffix of that resource's job of spec hash `spec` (lowercase letters and digits).
    `generation` > 0: the same declaration run again (`pulumi up --replace`) while the state still holds the
    earlier run's job (training_job/state_jobs.py): a new name, the same again if that replacement is retried."""
    parts = (resource, spec) if generation == 0 else (resource, spec, f"generation-{generation}")
    digest = _mac(seed, "name-suffix", *parts)
    return "".join(SUFFIX_ALPHABET[b % len(SUFFIX_ALPHABET)] for b in digest[:SUFFIX_LENGTH])
