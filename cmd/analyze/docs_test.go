package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// docs/cli.md is what `analyze docs` prints: the reference says what the
// binary does.
func TestCLIReferenceUpToDate(t *testing.T) {
	var got bytes.Buffer
	if err := writeReference(&got, newApp()); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("docs/cli.md differs from the commands' definitions: run go run ./cmd/analyze docs > docs/cli.md")
	}
	for _, want := range []string{"## analyze sudoku solve", "| `--nats URL` |", "## analyze completion"} {
		if !strings.Contains(got.String(), want) {
			t.Errorf("the reference lacks %q", want)
		}
	}
}
