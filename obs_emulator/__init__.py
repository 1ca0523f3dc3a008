"""Local OBS: an S3-compatible object store for offline work and tests (README.md).

moto's S3 backend answers the S3 API; this package adds what the local stack needs around it:
SigV4 credential checks with the ModelArts emulator's AK/SK, write-through persistence under the
state directory, request counters and fault injection (``/_obs/*``), and ``testing.running_obs``.
"""
