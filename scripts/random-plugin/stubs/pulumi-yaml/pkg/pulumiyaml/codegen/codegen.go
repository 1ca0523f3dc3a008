// Package codegen is a stub: YAML program generation is not supported.
package codegen

import (
	"errors"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
)

// GenerateProgram is not supported in this build.
func GenerateProgram(*pcl.Program) (map[string][]byte, hcl.Diagnostics, error) {
	return nil, nil, errors.New("YAML program generation is not available in this build")
}
