module modelarts.local/pulumi-random-bridge

go 1.25.11

require (
	github.com/pulumi/pulumi-terraform-bridge/v3 v3.135.0
	github.com/terraform-providers/terraform-provider-random v1.3.2-0.20260513075824-f8d869dc98d9
	github.com/terraform-providers/terraform-provider-random/shim v0.0.0
)

replace github.com/terraform-providers/terraform-provider-random/shim => ./shim

replace github.com/hashicorp/terraform-plugin-sdk/v2 => github.com/pulumi/terraform-plugin-sdk/v2 v2.0.0-20260318212141-5525259d096b
