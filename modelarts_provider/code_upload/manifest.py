"""A code directory as a manifest (what would be uploaded) and its content hash.

``scan`` only stats files (cheap: check() runs it at every preview); ``digest`` reads the bytes
(the program computes the content hash with it, create() recomputes it to upload exactly what the
hash names). Problems are ``ScanError``: one line naming the argument and what is allowed.

Content hash: sha256 over a version tag, then for each file in sorted relative-path order its POSIX
path, its size and its bytes (length-prefixed, so no two trees share a hash by concatenation).
Empty folders are not part of it (OBS has no folders). A symlinked file that stays inside the directory is read
through; one that points outside it is refused (a link to ~/.aws/credentials must not reach OBS: the directory is
what the user chose to upload, not what its links reach); symlinked folders are not entered.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from .excludes import exclude_spec

__all__ = ["FileEntry", "Limits", "Manifest", "ScanError", "Digest", "scan", "digest", "MiB"]

MiB = 1024 * 1024
HASH_VERSION = b"modelarts-code-upload/1\0"


class ScanError(ValueError):
    """A code directory that cannot be uploaded; ``field`` is the argument to fix."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")
        self.message = message


class Limits(BaseModel):
    model_config = ConfigDict(frozen=True)

    # ModelArts downloads the code directory into every training container: data does not belong there
    max_total_bytes: int = Field(default=200 * MiB, ge=1)
    # ModelArts: at most 1,000 files and folders in a code directory
    max_files: int = Field(default=1000, ge=1)


class FileEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: str  # relative, POSIX separators
    size: int


class Manifest(BaseModel):
    model_config = ConfigDict(frozen=True)

    files: tuple[FileEntry, ...]
    folders: int  # non-empty folders below the top (they count against max_files, as in ModelArts)
    total_bytes: int

    @property
    def entries(self) -> int:
        return len(self.files) + self.folders

    def has(self, path: str) -> bool:
        return any(f.path == path for f in self.files)


class Digest(BaseModel):
    model_config = ConfigDict(frozen=True)

    content_hash: str  # sha256 hex
    md5: dict[str, str]  # path -> MD5 hex (the ETag of a single-PUT object)


def _human(n: int) -> str:
    return f"{n / MiB:.1f} MiB" if n >= MiB / 10 else f"{n} bytes"


def source_of(local_dir: str) -> Path:
    """The directory a ``local_dir`` names: relative to the program's working directory (the Pulumi project)."""
    return Path(local_dir).expanduser().resolve()


def _inside(root: Path, path: Path) -> bool:
    """Whether `path`, its links resolved, lies in `root` (its links resolved)."""
    return Path(os.path.realpath(path)).is_relative_to(Path(os.path.realpath(root)))


def scan(root: Path, shown: str, excludes: Sequence[str] = (), limits: Limits = Limits()) -> Manifest:
    """The files of ``root`` after excludes, within the limits. ``shown``: the directory as the
    user wrote it (messages name it, not an absolute path)."""
    if not root.exists():
        raise ScanError("local_dir", f"{shown} does not exist (expected a directory with the training "
                                     f"code, relative to the Pulumi project or absolute)")
    if not root.is_dir():
        raise ScanError("local_dir", f"{shown} is not a directory (expected a directory with the "
                                     f"training code)")
    spec = exclude_spec(root, excludes)
    files: list[FileEntry] = []
    total = 0

    def over_count() -> ScanError:
        return ScanError("local_dir", f"{shown} holds more than {limits.max_files} files and folders "
                                      f"(max_files; ModelArts allows 1,000 in a code directory): "
                                      f"exclude what training does not need in .modelartsignore")

    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            entries = sorted(os.scandir(root / rel_dir), key=lambda e: e.name)
        except OSError as err:
            raise ScanError("local_dir", f"{shown}: cannot read {rel_dir or '.'} ({err.strerror})") from None
        for entry in entries:
            rel = f"{rel_dir}{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                if not spec.match_file(rel + "/"):
                    stack.append(rel + "/")
                continue
            if spec.match_file(rel):
                continue
            try:
                st = entry.stat(follow_symlinks=True)
            except OSError:
                continue  # a dangling symlink: nothing to upload
            if entry.is_symlink() and stat.S_ISREG(st.st_mode) and not _inside(root, root / rel):
                raise ScanError("local_dir", f"{shown}/{rel} is a link to a file outside {shown}: links out of the "
                                             "code directory are not uploaded (its target could be anything, a key "
                                             "file too); copy the file into the directory, or exclude the link in "
                                             ".modelartsignore")
            if not stat.S_ISREG(st.st_mode):
                continue  # sockets, fifos, symlinked folders
            files.append(FileEntry(path=rel, size=st.st_size))
            total += st.st_size
            if total > limits.max_total_bytes:
                raise ScanError("local_dir", f"{shown} holds more than {_human(limits.max_total_bytes)} "
                                             f"(max_total_bytes): keep data out of the code directory "
                                             f"or exclude it in .modelartsignore")
            if len(files) > limits.max_files:
                raise over_count()
    # the folders OBS will show: every ancestor of an uploaded file
    folders = len({f.path.rsplit("/", i)[0] for f in files for i in range(1, f.path.count("/") + 1)})
    if len(files) + folders > limits.max_files:
        raise over_count()
    if not files:
        raise ScanError("local_dir", f"{shown} holds no files to upload (after excludes); expected the "
                                     f"training code with its boot file")
    files.sort(key=lambda f: f.path)
    return Manifest(files=tuple(files), folders=folders, total_bytes=total)


def digest(root: Path, manifest: Manifest, chunk: int = MiB) -> Digest:
    """Read every file once: the content hash and each file's MD5."""
    h = hashlib.sha256(HASH_VERSION)
    md5s: dict[str, str] = {}
    for f in manifest.files:
        path = f.path.encode()
        h.update(len(path).to_bytes(4, "big") + path + f.size.to_bytes(8, "big"))
        m = hashlib.md5()  # noqa: S324 - the object ETag / Content-MD5, not a security hash
        size = 0
        with open(root / f.path, "rb") as fh:
            while block := fh.read(chunk):
                h.update(block)
                m.update(block)
                size += len(block)
        if size != f.size:
            raise ScanError("local_dir", f"{f.path} changed while it was read: run again")
        md5s[f.path] = m.hexdigest()
    return Digest(content_hash=h.hexdigest(), md5=md5s)
