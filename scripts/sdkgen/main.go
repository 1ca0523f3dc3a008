// modelarts-sdkgen: a TypeScript (Node.js), Python or Go SDK from a Pulumi package schema, with the CLI's own
// code generators (pkg/v3/codegen/nodejs, python, go). `pulumi package gen-sdk --language ...` needs the language
// hosts' GeneratePackage, which the Go module proxy does not serve (nodejs, go) or the python host we can build
// (sdk v3.79) does not implement; these are the same generators without them.
//
//	modelarts-sdkgen schema.json outdir                      (TypeScript)
//	modelarts-sdkgen --language python|go schema.json outdir
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noPackages: the modelarts schema refers to no other package (pulumi.json#/Any is built in).
type noPackages struct{}

func (noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("package %s: the schema may refer to no other package", pkg)
}

func (noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, fmt.Errorf("package %s: the schema may refer to no other package", d.Name)
}

func (noPackages) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("package %s: the schema may refer to no other package", pkg)
}

func (noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, fmt.Errorf("package %s: the schema may refer to no other package", d.Name)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "modelarts-sdkgen: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	args, language := os.Args[1:], "nodejs"
	if len(args) == 4 && args[0] == "--language" {
		language, args = args[1], args[2:]
	}
	if len(args) != 2 || (language != "nodejs" && language != "python" && language != "go") {
		fail("usage: modelarts-sdkgen [--language nodejs|python|go] SCHEMA.json OUTDIR")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fail("%v", err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		fail("%s: %v", args[0], err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		fail("%v", err)
	}
	if diags.HasErrors() {
		fail("the schema does not bind: %v", diags)
	}
	var files map[string][]byte
	switch language {
	case "python":
		files, err = python.GeneratePackage("modelarts-sdkgen", pkg, nil, noPackages{})
	case "go":
		files, err = gogen.GeneratePackage("modelarts-sdkgen", pkg, nil)
	default:
		files, err = nodejs.GeneratePackage("modelarts-sdkgen", pkg, nil, nil, false, noPackages{})
	}
	if err != nil {
		fail("%v", err)
	}
	for name, content := range files {
		path := filepath.Join(args[1], name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fail("%v", err)
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			fail("%v", err)
		}
	}
}
