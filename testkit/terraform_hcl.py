"""The Terraform configurations of testkit/terraform.py's scenarios: the Huawei Cloud provider pointed at a local
ModelArts, and the ModelArts resources each scenario applies (training jobs, networks, resource pools)."""

from __future__ import annotations

REGION = "cn-north-4"


def provider_block(endpoint: str, project_id: str, version: str) -> str:
    """The provider pointed at the local ModelArts: ModelArts and IAM at `endpoint`, the project given (so it asks
    IAM for none), no website probe of BSS. The AK/SK come from HW_ACCESS_KEY / HW_SECRET_KEY (Terraform.env)."""
    return f'''terraform {{
  required_providers {{
    huaweicloud = {{
      source  = "huaweicloud/huaweicloud"
      version = "{version}"
    }}
  }}
}}

provider "huaweicloud" {{
  region                  = "{REGION}"
  project_id              = "{project_id}"
  auth_url                = "{endpoint}/v3"
  skip_check_website_type = true
  skip_check_upgrade      = true
  endpoints = {{
    modelarts = "{endpoint}/"
    iam       = "{endpoint}/"
  }}
}}
'''


def _hcl_map(values: dict[str, str]) -> str:
    return "{ " + ", ".join(f'"{k}" = "{v}"' for k, v in values.items()) + " }"


def training_jobs_config(count: int, description: str, tags: dict[str, str]) -> str:
    """`count` training jobs of one shape (code in OBS, a public CPU flavor, one parameter and output), tagged."""
    return f'''
resource "huaweicloud_modelarts_training_job" "job" {{
  count = {count}
  kind  = "job"

  metadata {{
    name        = "tf-job-${{count.index}}"
    description = "{description}"
  }}

  algorithm {{
    code_dir  = "/tf-bucket/code/"
    boot_file = "/tf-bucket/code/train.py"
    engine {{
      engine_id = "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"
    }}
    parameters {{
      name  = "lr"
      value = "0.1"
    }}
    outputs {{
      name = "train_url"
      remote {{
        obs {{
          obs_url = "/tf-bucket/out/"
        }}
      }}
    }}
  }}

  spec {{
    resource {{
      flavor_id  = "modelarts.vm.cpu.8u"
      node_count = 1
    }}
  }}

  tags = {_hcl_map(tags)}
}}
'''


def networks_config(count: int, peers: int) -> str:
    """`count` ModelArts networks, each connected by peering to `peers` VPC subnets (made-up ids)."""
    peer = """
  peer_connections {{
    vpc_id    = "5b7a3c1e-0d2f-4e6a-9b8c-7d6e5f4a3b2{i}"
    subnet_id = "9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6{i}"
  }}"""
    return f'''
resource "huaweicloud_modelarts_network" "net" {{
  count = {count}
  name  = "tf-net-${{count.index}}"
  cidr  = "172.16.0.0/12"
{"".join(peer.format(i=i) for i in range(peers))}
}}
'''


def pools_config(count: int, description: str, nodes: int) -> str:
    """`count` dedicated pools for training of `nodes` CPU nodes each, on one network of their own."""
    return f'''
resource "huaweicloud_modelarts_network" "pools" {{
  name = "tf-pools-net"
  cidr = "172.16.0.0/12"
}}

resource "huaweicloud_modelarts_resource_pool" "pool" {{
  count       = {count}
  name        = "tf-pool-${{count.index}}"
  scope       = ["Train"]
  network_id  = huaweicloud_modelarts_network.pools.id
  description = "{description}"

  resources {{
    flavor_id = "modelarts.vm.cpu.8u32g"
    count     = {nodes}
  }}
}}
'''
