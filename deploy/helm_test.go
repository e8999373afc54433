package deploy_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// helmModule is the helm that renders the chart, built by go run from its
// Go module: helm is not a dependency of wopr (go.mod does not name it),
// and go run keeps its build in the build cache. .ci/run builds it before
// the tests.
const helmModule = "helm.sh/helm/v3/cmd/helm@v3.22.0"

// helm runs helm with args, outside the repository (so that go run does
// not touch go.mod) and with its own configuration and caches.
func helm(t *testing.T, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", append([]string{"run", helmModule}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off",
		"HELM_CACHE_HOME="+filepath.Join(dir, "cache"), "HELM_CONFIG_HOME="+filepath.Join(dir, "config"),
		"HELM_DATA_HOME="+filepath.Join(dir, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s: %v\n%s%s", strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}

// manifest is what the test reads of a rendered Kubernetes object.
type manifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas    *int   `yaml:"replicas"`
		ServiceName string `yaml:"serviceName"`
		Template    struct {
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
		VolumeClaimTemplates []struct {
			Metadata struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
		} `yaml:"volumeClaimTemplates"`
	} `yaml:"spec"`
}

type podSpec struct {
	TerminationGracePeriodSeconds *int `yaml:"terminationGracePeriodSeconds"`
	SecurityContext               struct {
		RunAsNonRoot *bool `yaml:"runAsNonRoot"`
	} `yaml:"securityContext"`
	Containers []container `yaml:"containers"`
	Volumes    []struct {
		Name string `yaml:"name"`
	} `yaml:"volumes"`
}

type container struct {
	Name    string   `yaml:"name"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name string `yaml:"name"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
	} `yaml:"resources"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"`
	} `yaml:"httpGet"`
}

// chartValues is what the test reads of the chart's values.
type chartValues struct {
	Coordinator struct {
		Replicas *int `yaml:"replicas"`
	} `yaml:"coordinator"`
	Worker struct {
		Replicas *int `yaml:"replicas"`
	} `yaml:"worker"`
}

// The chart lints and renders with its default values and with each file
// of its ci/ directory, into a coordinator StatefulSet and a worker
// Deployment whose flags and variables the binaries accept, whose files are
// on volumes, and whose probes ask for /healthz and /readyz on the port of
// --metrics-addr.
func TestHelmChart(t *testing.T) {
	chart := filepath.Join(root, "deploy", "helm", "wopr")
	valueFiles := []string{""}
	ci, err := filepath.Glob(filepath.Join(chart, "ci", "*.yaml"))
	if err != nil || len(ci) == 0 {
		t.Fatalf("no values files in %s/ci: %v", chart, err)
	}
	valueFiles = append(valueFiles, ci...)
	defaults := readValues(t, filepath.Join(chart, "values.yaml"))
	for _, vf := range valueFiles {
		name := "default values"
		args := []string{chart}
		want := defaults
		if vf != "" {
			name = "ci/" + filepath.Base(vf)
			args = append(args, "-f", vf)
			v := readValues(t, vf)
			if v.Coordinator.Replicas != nil {
				want.Coordinator.Replicas = v.Coordinator.Replicas
			}
			if v.Worker.Replicas != nil {
				want.Worker.Replicas = v.Worker.Replicas
			}
		}
		t.Run(name, func(t *testing.T) {
			helm(t, append([]string{"lint", "--strict"}, args...)...)
			out := helm(t, append([]string{"template", "wopr"}, args...)...)
			checkRendered(t, out, want)
		})
	}
}

func readValues(t *testing.T, path string) chartValues {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v chartValues
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// fileFlags are the flags whose values are files that must be mounted.
var fileFlags = []string{"nats-creds", "nats-nkey", "tls-ca", "tls-cert", "tls-key"}

func checkRendered(t *testing.T, out []byte, want chartValues) {
	dec := yaml.NewDecoder(bytes.NewReader(out))
	kinds := map[string]int{}
	for {
		var m manifest
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("helm template: %v\n%s", err, out)
		}
		kinds[m.Kind]++
		if m.Kind != "StatefulSet" && m.Kind != "Deployment" {
			continue
		}
		where := m.Kind + " " + m.Metadata.Name
		pod := m.Spec.Template.Spec
		if sc := pod.SecurityContext.RunAsNonRoot; sc == nil || !*sc {
			t.Errorf("%s: securityContext.runAsNonRoot is not true", where)
		}
		volumes := map[string]bool{}
		for _, v := range pod.Volumes {
			volumes[v.Name] = true
		}
		for _, v := range m.Spec.VolumeClaimTemplates {
			volumes[v.Metadata.Name] = true
		}
		if len(pod.Containers) != 1 {
			t.Errorf("%s: %d containers, want 1", where, len(pod.Containers))
			continue
		}
		c := pod.Containers[0]
		bin, vals, u := checkCommand(t, where, append(append([]string(nil), c.Command...), c.Args...))
		var env []string
		for _, e := range c.Env {
			env = append(env, e.Name)
		}
		checkEnv(t, where, u, env...)

		mounts := map[string]string{} // mount path -> volume
		for _, vm := range c.VolumeMounts {
			if !volumes[vm.Name] {
				t.Errorf("%s: mounts volume %q, which the pod does not have", where, vm.Name)
			}
			mounts[vm.MountPath] = vm.Name
		}
		if _, ok := mounts[vals["data"]]; !ok {
			t.Errorf("%s: --data %q is not a mount point (mounts %v)", where, vals["data"], mounts)
		}
		for _, f := range fileFlags {
			if v, ok := vals[f]; ok && !mountedFile(mounts, v) {
				t.Errorf("%s: --%s %s is not in a mounted volume (mounts %v)", where, f, v, mounts)
			}
		}
		checkProbes(t, where, c, vals["metrics-addr"])
		if len(c.Resources.Requests) == 0 {
			t.Errorf("%s: no resource requests", where)
		}

		switch {
		case m.Kind == "StatefulSet" && bin == "coordinator":
			if m.Spec.Replicas == nil || *m.Spec.Replicas != *want.Coordinator.Replicas {
				t.Errorf("%s: replicas %v, want %d (the values)", where, m.Spec.Replicas, *want.Coordinator.Replicas)
			}
			if mounts[vals["data"]] != "data" || len(m.Spec.VolumeClaimTemplates) != 1 {
				t.Errorf("%s: --data %q is on volume %q, want the claim template \"data\"", where, vals["data"], mounts[vals["data"]])
			}
		case m.Kind == "Deployment" && bin == "worker":
			if m.Spec.Replicas == nil || *m.Spec.Replicas != *want.Worker.Replicas {
				t.Errorf("%s: replicas %v, want %d (the values)", where, m.Spec.Replicas, *want.Worker.Replicas)
			}
			grace, err := time.ParseDuration(vals["grace"])
			if tg := pod.TerminationGracePeriodSeconds; err != nil || tg == nil || time.Duration(*tg)*time.Second <= grace {
				t.Errorf("%s: terminationGracePeriodSeconds %v, --grace %q: want a grace period longer than --grace", where, tg, vals["grace"])
			}
		default:
			t.Errorf("%s runs %s, want a StatefulSet of coordinators or a Deployment of workers", where, bin)
		}
	}
	if kinds["StatefulSet"] != 1 || kinds["Deployment"] != 1 {
		t.Errorf("helm template: %v; want one StatefulSet (coordinator) and one Deployment (workers)", kinds)
	}
}

// mountedFile reports whether path is below one of the mount points.
func mountedFile(mounts map[string]string, path string) bool {
	for m := range mounts {
		if strings.HasPrefix(path, strings.TrimSuffix(m, "/")+"/") {
			return true
		}
	}
	return false
}

// checkProbes checks that the liveness and readiness probes ask for
// /healthz and /readyz on the port that --metrics-addr serves.
func checkProbes(t *testing.T, where string, c container, metricsAddr string) {
	t.Helper()
	_, port, ok := strings.Cut(metricsAddr, ":")
	n, err := strconv.Atoi(port)
	if !ok || err != nil {
		t.Errorf("%s: --metrics-addr %q, want HOST:PORT or :PORT", where, metricsAddr)
		return
	}
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, p := range []struct {
		kind  string
		probe *probe
		path  string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil {
			t.Errorf("%s: no %s probe", where, p.kind)
			continue
		}
		got := p.probe.HTTPGet.Port
		if name, isName := got.(string); isName {
			got = ports[name]
		}
		if p.probe.HTTPGet.Path != p.path || got != n {
			t.Errorf("%s: %s probe on %s port %v, want %s on %d (--metrics-addr)", where, p.kind, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port, p.path, n)
		}
	}
}
