module github.com/pulumi/pulumi-yaml

go 1.25.8

require (
	github.com/hashicorp/hcl/v2 v2.24.0
	github.com/pulumi/pulumi/pkg/v3 v3.253.0
)
