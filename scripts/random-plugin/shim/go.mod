module github.com/terraform-providers/terraform-provider-random/shim

go 1.25.8

require (
	github.com/hashicorp/terraform-plugin-framework v1.19.0
	github.com/terraform-providers/terraform-provider-random v1.3.2-0.20260513075824-f8d869dc98d9
)
