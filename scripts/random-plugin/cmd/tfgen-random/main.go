// Command tfgen-random generates schema.json and bridge-metadata.json for the
// random provider: `tfgen-random schema --out DIR`.
package main

import (
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfgen"

	"modelarts.local/pulumi-random-bridge/provider"
)

func main() {
	tfgen.Main("random", provider.Provider(nil))
}
