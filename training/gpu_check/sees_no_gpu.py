"""What a CPU-flavor task can see of the machine's GPUs: it must see none (the device check's last check)."""

import os

visible = os.environ.get("CUDA_VISIBLE_DEVICES")
try:
    import torch

    cuda = torch.cuda.is_available()
except ImportError:  # no PyTorch: the environment alone says it
    cuda = None
print(f"CUDA_VISIBLE_DEVICES={visible!r} MA_NUM_GPUS={os.environ.get('MA_NUM_GPUS')} torch_cuda={cuda}", flush=True)
if visible != "" or cuda:
    raise SystemExit("a CPU-flavor task can see a GPU")
