// Package shim re-exports the Terraform random provider so that a module
// outside github.com/terraform-providers/terraform-provider-random can use it.
// It must live under that import path because the provider sits in an
// internal package.
package shim

import (
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/terraform-providers/terraform-provider-random/internal/provider"
)

// NewProvider returns the Terraform random provider as a framework provider.
func NewProvider() fwprovider.Provider {
	return provider.New()
}
