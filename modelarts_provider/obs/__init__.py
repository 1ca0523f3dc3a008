"""OBS client (S3-compatible API over botocore, boto3's core) for code uploads and buckets. No Pulumi imports here, and nothing of
core/: like the ModelArts client it sits below the kernel (the providers' side is core/obs_provider.py).

    from modelarts_provider.obs import ObsClient, resolve_obs_settings

    settings = resolve_obs_settings(lambda key: None, os.environ)   # or a `modelarts:` config lookup
    obs = ObsClient(settings)
    obs.create_bucket("my-bucket"); obs.put_file("my-bucket", "code/train.py", path, md5_hex)

Why botocore rather than Huawei's esdk-obs-python: botocore (boto3's core; boto3 itself adds only what
we do not use, and 0.15 s of imports) is maintained weekly by AWS with a
large user base, ships pure-Python wheels, has a configurable standard retry mode (backoff with
jitter, throttling and 5xx and connection errors, bounded attempts), thread-safe clients over one
pooled urllib3 connection pool, and typed errors that carry the service's error code and request
id; moto (the local OBS) speaks the same API, so the tests run the exact client code. esdk-obs-python
has native OBS extras (OBS signature, x-obs headers) that we do not need, ships as an sdist, retries
only on its own terms and is maintained far less visibly. OBS documents S3 compatibility for what we
use: bucket create/head/delete, object PUT/HEAD/GET/DELETE, ListObjectsV2, SigV4 path-style.
"""

from .client import ObjectInfo, ObsClient
from .endpoints import obs_endpoint, resolve_obs_endpoint
from .errors import ObsConfigError, ObsError
from .names import BUCKET_RULE, bucket_name_problem
from .settings import ObsSettings, resolve_obs_settings

__all__ = ["BUCKET_RULE", "ObjectInfo", "ObsClient", "ObsConfigError", "ObsError", "ObsSettings",
           "bucket_name_problem", "obs_endpoint", "resolve_obs_endpoint", "resolve_obs_settings"]
