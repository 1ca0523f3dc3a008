// Package codegen is a stub: it carries the C# language-info types written into
// Pulumi package schemas; C# program generation is not supported.
package codegen

import (
	"errors"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
)

// CSharpPropertyInfo is the "csharp" language section of a schema property.
type CSharpPropertyInfo struct {
	Name string `json:"name,omitempty"`
}

// CSharpResourceInfo is the "csharp" language section of a schema resource.
type CSharpResourceInfo struct {
	Name string `json:"name,omitempty"`
}

// CSharpPackageInfo is the "csharp" language section of a schema package.
type CSharpPackageInfo struct {
	PackageReferences            map[string]string `json:"packageReferences,omitempty"`
	Namespaces                   map[string]string `json:"namespaces,omitempty"`
	Compatibility                string            `json:"compatibility,omitempty"`
	DictionaryConstructors       bool              `json:"dictionaryConstructors,omitempty"`
	ProjectReferences            []string          `json:"projectReferences,omitempty"`
	LiftSingleValueMethodReturns bool              `json:"liftSingleValueMethodReturns,omitempty"`
	RootNamespace                string            `json:"rootNamespace,omitempty"`
	RespectSchemaVersion         bool              `json:"respectSchemaVersion,omitempty"`
}

// GenerateProgram is not supported in this build.
func GenerateProgram(*pcl.Program) (map[string][]byte, hcl.Diagnostics, error) {
	return nil, nil, errors.New("C# program generation is not available in this build")
}
