// Command pulumi-resource-random is the Pulumi resource provider plugin for
// the random package, bridged from the Terraform random provider.
package main

import (
	"context"
	_ "embed"

	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfbridge"

	"modelarts.local/pulumi-random-bridge/provider"
)

//go:embed schema.json
var schema []byte

//go:embed bridge-metadata.json
var bridgeMetadata []byte

func main() {
	meta := tfbridge.ProviderMetadata{PackageSchema: schema}
	tfbridge.Main(context.Background(), "random", provider.Provider(bridgeMetadata), meta)
}
