// Command capture_golangsdk makes the ModelArts training-job requests terraform-provider-huaweicloud makes
// (huaweicloud/services/modelarts/resource_huaweicloud_modelarts_training_job.go: the same paths, the same
// golangsdk.RequestOpts), signed by github.com/chnsz/golangsdk with AK/SK, against the capturing socket of
// scripts/capture_sdk_requests/capture.py, which records them byte for byte. It prints what it did as JSON
// (client, operations); capture.py adds the recorded requests.
//
// Environment (set by capture.py): CAPTURE_ENDPOINT (ends with /), CAPTURE_ACCESS_KEY, CAPTURE_SECRET_KEY,
// CAPTURE_PROJECT_ID, CAPTURE_SECURITY_TOKEN, CAPTURE_DOMAIN_ID.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/chnsz/golangsdk"
)

const jobID = "4a1f3bde-0b0c-4c43-9c6a-2a2e5a0b5f11"

// client is what the provider's config builds for AK/SK: AKSKAuthOptions with the project id (and, for
// temporary credentials, the security token and the domain id).
func client(temporary bool) *golangsdk.ServiceClient {
	opts := golangsdk.AKSKAuthOptions{
		AccessKey: os.Getenv("CAPTURE_ACCESS_KEY"),
		SecretKey: os.Getenv("CAPTURE_SECRET_KEY"),
		ProjectId: os.Getenv("CAPTURE_PROJECT_ID"),
	}
	if temporary {
		opts.SecurityToken = os.Getenv("CAPTURE_SECURITY_TOKEN")
		opts.DomainID = os.Getenv("CAPTURE_DOMAIN_ID")
	}
	provider := &golangsdk.ProviderClient{HTTPClient: http.Client{}, AKSKAuthOptions: opts, ProjectID: opts.ProjectId}
	return &golangsdk.ServiceClient{ProviderClient: provider, Endpoint: os.Getenv("CAPTURE_ENDPOINT")}
}

func path(c *golangsdk.ServiceClient, url string) string {
	url = strings.ReplaceAll(c.Endpoint+url, "{project_id}", c.ProjectID)
	return strings.ReplaceAll(url, "{training_job_id}", jobID)
}

// jsonOpts: the options every call of the provider passes.
func jsonOpts(body interface{}) *golangsdk.RequestOpts {
	return &golangsdk.RequestOpts{
		KeepResponseBody: true,
		MoreHeaders:      map[string]string{"Content-Type": "application/json"},
		JSONBody:         body,
		OkCodes:          []int{200, 201, 202, 204},
	}
}

func main() {
	create := map[string]interface{}{
		"kind": "job",
		"metadata": map[string]interface{}{
			"name": "captured-job", "description": "recorded by capture_golangsdk",
			"annotations": map[string]string{"modelarts-pulumi/owner": "dev::job"},
		},
		"algorithm": map[string]interface{}{
			"code_dir": "/capture-bucket/code/", "boot_file": "/capture-bucket/code/train.py",
			"engine":       map[string]string{"engine_id": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"},
			"parameters":   []map[string]string{{"name": "lr", "value": "0.1"}},
			"outputs":      []interface{}{map[string]interface{}{"name": "train_url", "remote": map[string]interface{}{"obs": map[string]string{"obs_url": "/capture-bucket/out/"}}}},
			"environments": map[string]string{"EPOCHS": "3"},
		},
		"spec": map[string]interface{}{"resource": map[string]interface{}{"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1}},
	}
	calls := []struct {
		name      string
		method    string
		url       string
		body      interface{}
		temporary bool
	}{
		{"CreateTrainingJob", "POST", "v2/{project_id}/training-jobs", create, false},
		{"ShowTrainingJobDetails", "GET", "v2/{project_id}/training-jobs/{training_job_id}", nil, false},
		{"UpdateTrainingJobDescription", "PUT", "v2/{project_id}/training-jobs/{training_job_id}",
			map[string]string{"description": "changed by capture_golangsdk"}, false},
		{"ListTrainingJobs", "POST", "v2/{project_id}/training-job-searches",
			map[string]interface{}{"offset": 0, "limit": 50}, false},
		{"DeleteTrainingJob", "DELETE", "v2/{project_id}/training-jobs/{training_job_id}", nil, false},
		{"ShowTrainingJobDetails (temporary credentials)", "GET", "v2/{project_id}/training-jobs/{training_job_id}", nil, true},
	}
	var names []string
	for _, call := range calls {
		c := client(call.temporary)
		resp, err := c.Request(call.method, path(c, call.url), jsonOpts(call.body))
		if err != nil {
			fmt.Fprintln(os.Stderr, call.name+":", err)
			os.Exit(1)
		}
		resp.Body.Close()
		names = append(names, call.name)
	}
	version := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/chnsz/golangsdk" {
				version = dep.Version
			}
		}
	}
	out, _ := json.Marshal(map[string]interface{}{
		"client":     "github.com/chnsz/golangsdk " + version + " (the SDK of terraform-provider-huaweicloud), " + runtime.Version(),
		"operations": names,
	})
	fmt.Println(string(out))
}
