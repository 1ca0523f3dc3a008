"""Write-through persistence of moto's in-memory S3 backend in one SQLite file.

moto keeps buckets and objects in memory only. After every successful write request the server
calls ``sync_key`` or ``sync_bucket``, which copy what the backend *now* holds for that key or
bucket into the database (so the request's meaning never has to be re-interpreted here); at start,
``restore`` loads the database back into the backend. SQLite gives atomic commits: a server killed
mid-write leaves the previous state, never a torn object.

Kept: buckets (name, region), each object's latest version (bytes, ETag, metadata incl.
Content-Type, last-modified). Not kept: versions, ACLs, policies, lifecycle and other bucket
configuration, multipart uploads in progress.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS buckets (name TEXT PRIMARY KEY, region TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS objects (
    bucket TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL, etag TEXT NOT NULL,
    metadata TEXT NOT NULL, last_modified TEXT NOT NULL, PRIMARY KEY (bucket, key));
"""


def backend_for_region(region: str) -> Any:
    """moto's S3 backend holding a bucket of that region (moto keeps one per partition: cn-* regions
    land in "aws-cn"; the account is moto's default, as for any access key it does not know)."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.s3.models import s3_backends
    from moto.utilities.utils import get_partition

    return s3_backends[DEFAULT_ACCOUNT_ID][get_partition(region)]


def live_bucket(name: str) -> Any:
    """The backend's bucket of that name in whichever partition holds it, or None."""
    from moto.s3.models import s3_backends

    where = s3_backends.bucket_accounts.get(name)
    if where is None:
        return None
    partition, account_id = where
    return s3_backends[account_id][partition].buckets.get(name)


def _etag(key: Any) -> str:
    return key.etag.strip('"')


class Store:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- start -----------------------------------------------------------------------------------

    def restore(self) -> tuple[int, int]:
        """Load every stored bucket and object into the backend; (buckets, objects) loaded."""
        with self._lock:
            buckets = dict(self._db.execute("SELECT name, region FROM buckets").fetchall())
            for name, region in buckets.items():
                backend_for_region(region).create_bucket(name, region)
            rows = self._db.execute(
                "SELECT bucket, key, body, etag, metadata, last_modified FROM objects").fetchall()
        for bucket, key, body, etag, metadata, last_modified in rows:
            s3 = backend_for_region(buckets[bucket])
            obj = s3.put_object(bucket, key, bytes(body), etag=etag, disable_notification=True)
            obj.set_metadata(json.loads(metadata))
            obj.last_modified = datetime.fromisoformat(last_modified)
        return len(buckets), len(rows)

    # --- write-through ----------------------------------------------------------------------------

    def sync_key(self, bucket: str, key: str) -> None:
        """Store what the backend holds for bucket/key now (or forget it if nothing)."""
        with self._lock:  # read under the lock: the last sync of a key stores its last write
            if not self._bucket_row(bucket):
                return
            obj = self._current(bucket, key)
            if obj is None:
                self._db.execute("DELETE FROM objects WHERE bucket=? AND key=?", (bucket, key))
            else:
                self._put(bucket, key, obj)

    def sync_bucket(self, bucket: str) -> None:
        """Reconcile a whole bucket: its existence, and every object whose ETag changed."""
        with self._lock:
            if not self._bucket_row(bucket):
                return
            stored = dict(self._db.execute("SELECT key, etag FROM objects WHERE bucket=?", (bucket,)))
            live = {name: k for name, k in self._live_keys(bucket)}
            self._db.execute("BEGIN")
            try:
                for name in stored.keys() - live.keys():
                    self._db.execute("DELETE FROM objects WHERE bucket=? AND key=?", (bucket, name))
                for name, obj in live.items():
                    if stored.get(name) != _etag(obj):
                        self._put(bucket, name, obj)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def wipe(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM objects")
            self._db.execute("DELETE FROM buckets")

    # --- helpers (called with the lock held) -------------------------------------------------------

    def _bucket_row(self, bucket: str) -> bool:
        """Mirror the bucket's existence; True when it exists."""
        live = live_bucket(bucket)
        if live is None:
            self._db.execute("DELETE FROM objects WHERE bucket=?", (bucket,))
            self._db.execute("DELETE FROM buckets WHERE name=?", (bucket,))
            return False
        self._db.execute("INSERT OR IGNORE INTO buckets (name, region) VALUES (?, ?)",
                         (bucket, live.region_name))
        return True

    def _put(self, bucket: str, key: str, obj: Any) -> None:
        modified = obj.last_modified
        if modified.tzinfo is None:
            modified = modified.replace(tzinfo=timezone.utc)
        self._db.execute(
            "INSERT OR REPLACE INTO objects (bucket, key, body, etag, metadata, last_modified) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (bucket, key, sqlite3.Binary(obj.value), _etag(obj), json.dumps(dict(obj.metadata)),
             modified.isoformat()))

    @staticmethod
    def _current(bucket: str, key: str) -> Any:
        live = live_bucket(bucket)
        if live is None:
            return None
        obj = live.keys.get(key)
        # a delete marker (versioned bucket) means: no current object
        return obj if obj is not None and hasattr(obj, "value") else None

    @staticmethod
    def _live_keys(bucket: str) -> list[tuple[str, Any]]:
        live = live_bucket(bucket)
        if live is None:
            return []
        out = []
        for name in list(live.keys.keys()):
            obj = live.keys.get(name)
            if obj is not None and hasattr(obj, "value"):
                out.append((name, obj))
        return out
