package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// analyze mnk refuses each board of the table that the kind and the web's
// jobs API share (pkg/tasks/mnk/testdata/refused_boards.json) with a usage
// error whose message is the table's: the kind's, word for word.
func TestRefusedBoards(t *testing.T) {
	data, err := os.ReadFile("../../pkg/tasks/mnk/testdata/refused_boards.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Args  []string `json:"args"`
		Error string   `json:"error"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		// Nothing may start: a run would make the data directory.
		dir := filepath.Join(t.TempDir(), "data")
		args := append(append([]string{"analyze", "mnk"}, c.Args...), "--data", dir)
		err := newApp().RunContext(context.Background(), args)
		var ue usageError
		if !errors.As(err, &ue) || err.Error() != c.Error {
			t.Errorf("%s: %v, want the usage error %q", strings.Join(args[1:], " "), err, c.Error)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: created %s: something was started", strings.Join(args[1:], " "), dir)
		}
	}
}
