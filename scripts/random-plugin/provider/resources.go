// Package provider maps the Terraform random provider onto Pulumi tokens
// compatible with the pulumi_random 4.x SDKs (random:index/<name>:<Name>).
package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"

	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfbridge"
	sdkbridge "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	"github.com/terraform-providers/terraform-provider-random/shim"
)

// Version is the provider version reported to the engine; set with
// -ldflags "-X .../provider.Version=4.21.1".
var Version = "4.21.1"

const mainMod = "index"

// Provider returns the bridge ProviderInfo. metadata is the contents of the
// bridge-metadata.json produced by tfgen (nil/empty while running tfgen).
func Provider(metadata []byte) sdkbridge.ProviderInfo {
	prov := sdkbridge.ProviderInfo{
		P:            tfbridge.ShimProvider(shim.NewProvider()),
		Name:         "random",
		DisplayName:  "Random",
		Version:      Version,
		Publisher:    "Pulumi",
		Description:  "A Pulumi package to safely use randomness in Pulumi programs.",
		Keywords:     []string{"pulumi", "random"},
		License:      "Apache-2.0",
		Homepage:     "https://pulumi.io",
		Repository:   "https://github.com/pulumi/pulumi-random",
		GitHubOrg:    "hashicorp",
		MetadataInfo: sdkbridge.NewProviderMetadata(metadata),
		Config:       map[string]*sdkbridge.SchemaInfo{},
		// Where tfgen reads the upstream docs/ for descriptions (optional).
		UpstreamRepoPath: os.Getenv("RANDOM_UPSTREAM_REPO_PATH"),
		Resources: map[string]*sdkbridge.ResourceInfo{
			// random_bytes has no "id" attribute.
			"random_bytes": {ComputeID: bytesID},
		},
	}
	// An empty TF prefix keeps "random" in the name: random_string becomes
	// random:index/randomString:RandomString, as in the pulumi_random SDKs.
	prov.MustComputeTokens(tokens.SingleModule("", mainMod, tokens.MakeStandard("random")))
	prov.MustApplyAutoAliases()
	return prov
}

// bytesID derives a stable, non-secret ID for random_bytes from a hash of its
// (secret) base64 value, so the bytes themselves never appear in the ID.
func bytesID(_ context.Context, state resource.PropertyMap) (resource.ID, error) {
	v, ok := state["base64"]
	for ok && v.IsSecret() {
		v = v.SecretValue().Element
	}
	if !ok || !v.IsString() || v.StringValue() == "" {
		return resource.ID("random-bytes"), nil
	}
	sum := sha256.Sum256([]byte(v.StringValue()))
	return resource.ID("random-bytes-" + hex.EncodeToString(sum[:8])), nil
}
