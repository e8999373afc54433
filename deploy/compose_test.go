package deploy_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/woprlabs/wopr/internal/broker"
)

// composeService is what the test reads of a compose service.
type composeService struct {
	Image           string            `yaml:"image"`
	Build           any               `yaml:"build"`
	Entrypoint      []string          `yaml:"entrypoint"`
	Command         []string          `yaml:"command"`
	Environment     map[string]string `yaml:"environment"`
	Volumes         []string          `yaml:"volumes"`
	Ports           []any             `yaml:"ports"`
	ContainerName   string            `yaml:"container_name"`
	StopGracePeriod string            `yaml:"stop_grace_period"`
	Profiles        []string          `yaml:"profiles"`
	Deploy          struct {
		Replicas int `yaml:"replicas"`
	} `yaml:"deploy"`
}

var interpolation = regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*):-([^}]*)\}`)

// interpolate replaces ${NAME:-default} with its default, as compose does
// when NAME is not set.
func interpolate(s string) string {
	return interpolation.ReplaceAllString(s, "$2")
}

// natsMinor returns the major and minor version of nats-server in go.mod:
// "2.15" for v2.15.2.
func natsMinor(t *testing.T) string {
	m := regexp.MustCompile(`(?m)^\s*github\.com/nats-io/nats-server/v2 v(\d+\.\d+)\.`).FindSubmatch(readFile(t, "go.mod"))
	if m == nil {
		t.Fatal("go.mod does not require github.com/nats-io/nats-server/v2")
	}
	return string(m[1])
}

// deploy/compose.yaml: a 3-node JetStream cluster of the nats-server
// version in go.mod, a coordinator with --replicas 3 and workers that
// scale, every flag and variable one their binary accepts.
func TestCompose(t *testing.T) {
	const file = "deploy/compose.yaml"
	text := readFile(t, file)
	var compose struct {
		Services map[string]composeService `yaml:"services"`
		Volumes  map[string]any            `yaml:"volumes"`
	}
	if err := yaml.Unmarshal(text, &compose); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	checkWOPRVars(t, file, string(text))

	// mounted returns the container paths of a service's volumes.
	mounted := func(s composeService) []string {
		var paths []string
		for _, v := range s.Volumes {
			f := strings.Split(v, ":")
			if len(f) == 1 {
				paths = append(paths, f[0]) // an anonymous volume
			} else {
				paths = append(paths, f[1])
			}
		}
		return paths
	}

	var natsNodes, coordinators, workers []string
	for name, s := range compose.Services {
		where := file + ": service " + name
		switch {
		case strings.HasPrefix(s.Image, "nats:"):
			natsNodes = append(natsNodes, name)
			if want := "nats:" + natsMinor(t); s.Image != want && !strings.HasPrefix(s.Image, want+"-") && !strings.HasPrefix(s.Image, want+".") {
				t.Errorf("%s: image %s, want %s (go.mod's nats-server, which the tests run)", where, s.Image, want)
			}
			_, vals, _ := checkCommand(t, where, append([]string{"nats-server"}, s.Command...))
			for _, f := range []string{"name", "cluster_name", "cluster", "routes", "js", "sd"} {
				if _, ok := vals[f]; !ok {
					t.Errorf("%s: no --%s", where, f)
				}
			}
			if vals["name"] != name {
				t.Errorf("%s: --name %q, want the service's name", where, vals["name"])
			}
			if !slices.Contains(mounted(s), vals["sd"]) {
				t.Errorf("%s: --sd %s is not on a volume (volumes %v)", where, vals["sd"], s.Volumes)
			}
		case s.Image == "wopr:latest" || s.Build != nil:
			argv := append(slices.Clone(s.Entrypoint), s.Command...)
			for i := range argv {
				argv[i] = interpolate(argv[i])
			}
			bin, vals, u := checkCommand(t, where, argv)
			var env []string
			for k := range s.Environment {
				env = append(env, k)
			}
			slices.Sort(env)
			checkEnv(t, where, u, env...)
			if url := s.Environment["WOPR_NATS"]; url == "" {
				t.Errorf("%s: no WOPR_NATS", where)
			} else if err := broker.CheckURL(url); err != nil {
				t.Errorf("%s: WOPR_NATS %q: %v", where, url, err)
			}
			switch bin {
			case "coordinator":
				coordinators = append(coordinators, name)
				if vals["replicas"] != "3" {
					t.Errorf("%s: --replicas %q, want 3 on a 3-node cluster", where, vals["replicas"])
				}
			case "worker":
				workers = append(workers, name)
				checkScales(t, where, s)
				grace, err := time.ParseDuration(vals["grace"])
				stop, err2 := time.ParseDuration(s.StopGracePeriod)
				if err != nil || err2 != nil || stop <= grace {
					t.Errorf("%s: stop_grace_period %q, --grace %q: want a stop grace period longer than --grace", where, s.StopGracePeriod, vals["grace"])
				}
			}
			if bin != "analyze" && !slices.Contains(mounted(s), vals["data"]) {
				t.Errorf("%s: --data %q is not on a volume (volumes %v)", where, vals["data"], s.Volumes)
			}
		}
	}
	slices.Sort(natsNodes)
	if len(natsNodes) != 3 || len(coordinators) != 1 || len(workers) != 1 {
		t.Fatalf("%s: nats nodes %v, coordinators %v, workers %v; want 3 nats nodes, one coordinator and one worker service",
			file, natsNodes, coordinators, workers)
	}
	var clients, routes []string
	for _, n := range natsNodes {
		clients = append(clients, fmt.Sprintf("nats://%s:4222", n))
		routes = append(routes, fmt.Sprintf("nats://%s:6222", n))
	}
	for _, n := range natsNodes {
		_, vals, _ := checkCommand(t, file+": service "+n, append([]string{"nats-server"}, compose.Services[n].Command...))
		if vals["routes"] != strings.Join(routes, ",") {
			t.Errorf("%s: service %s: --routes %q, want %q", file, n, vals["routes"], strings.Join(routes, ","))
		}
	}
	for name, s := range compose.Services {
		if url, ok := s.Environment["WOPR_NATS"]; ok && url != strings.Join(clients, ",") {
			t.Errorf("%s: service %s: WOPR_NATS %q, want the three nodes, %q", file, name, url, strings.Join(clients, ","))
		}
	}
}

// checkScales checks that `docker compose up --scale worker=N` can start
// N copies of the service s: no container name, no fixed host port.
func checkScales(t *testing.T, where string, s composeService) {
	t.Helper()
	if s.ContainerName != "" {
		t.Errorf("%s: container_name %q: the service cannot scale", where, s.ContainerName)
	}
	for _, p := range s.Ports {
		switch p := p.(type) {
		case map[string]any:
			if _, ok := p["published"]; ok {
				t.Errorf("%s: port %v publishes a fixed host port: the service cannot scale", where, p)
			}
		default:
			t.Errorf("%s: port %v: want the long syntax without published, so that each copy gets a port", where, p)
		}
	}
}
