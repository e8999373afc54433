package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Common is what every job's report has. The runtime fills it once for all
// kinds (Compose); a kind's report leaves these fields out.
type Common struct {
	Tasks       int       `json:"tasks"`
	FailedTasks int       `json:"failed_tasks"`
	Failures    []Failure `json:"failures,omitempty"`
	// CachedTasks counts the tasks answered from the result cache;
	// CacheHits the positions or puzzles that workers took from their
	// caches (Summary).
	CachedTasks    int     `json:"cached_tasks"`
	CacheHits      int64   `json:"cache_hits"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	// What the coordinator refused, verified and quarantined (Summary).
	RefusedResults     int      `json:"refused_results,omitempty"`
	VerifiedTasks      int      `json:"verified_tasks,omitempty"`
	QuarantinedWorkers []string `json:"quarantined_workers,omitempty"`
	// Complete is true when no task failed: every figure covers the whole job.
	Complete bool `json:"complete"`
}

// CommonOf is the common part of the report of a job with this summary.
func CommonOf(sum Summary) Common {
	return Common{
		Tasks: sum.Tasks, FailedTasks: len(sum.Failures), Failures: sum.Failures, CachedTasks: sum.CachedTasks, CacheHits: sum.CacheHits,
		ElapsedSeconds: sum.Elapsed.Seconds(), Complete: len(sum.Failures) == 0,
		RefusedResults: sum.Refused, VerifiedTasks: sum.Verified, QuarantinedWorkers: sum.Quarantined,
	}
}

// Text renders the common lines that follow a kind's text: tasks, those
// answered from the result cache, workers' cache hits, elapsed time, and,
// for an incomplete job, which tasks failed and why.
func (c Common) Text() string {
	var b strings.Builder
	Row(&b, "tasks", "%d, %d failed, %d from the result cache", c.Tasks, c.FailedTasks, c.CachedTasks)
	if c.CacheHits > 0 {
		Row(&b, "worker cache hits", "%s (positions or puzzles a worker had cached)", Thousands(uint64(c.CacheHits)))
	}
	if c.VerifiedTasks > 0 {
		Row(&b, "verified tasks", "%d (a second worker computed the same)", c.VerifiedTasks)
	}
	if c.RefusedResults > 0 || len(c.QuarantinedWorkers) > 0 {
		Row(&b, "refused results", "%d (not believed: see the coordinator's log)", c.RefusedResults)
	}
	if len(c.QuarantinedWorkers) > 0 {
		Row(&b, "quarantined workers", "%s (their results are refused and purged from the cache)", strings.Join(c.QuarantinedWorkers, ", "))
	}
	Row(&b, "elapsed", "%.3f s", c.ElapsedSeconds)
	if !c.Complete {
		fmt.Fprintf(&b, "INCOMPLETE: %d of %s failed; the figures above leave them out\n", c.FailedTasks, Count(c.Tasks, "task"))
		for _, f := range c.Failures {
			fmt.Fprintf(&b, "  task %s: %s\n", f.Task, f.Reason)
		}
	}
	return b.String()
}

// Row writes one line of a report in the layout every kind uses: a label
// in a column of 26 characters, then the value.
func Row(b *strings.Builder, label, format string, args ...any) {
	fmt.Fprintf(b, "  %-26s %s\n", label, fmt.Sprintf(format, args...))
}

// Compose is a job's whole report: as JSON, the kind's report object with
// the fields of Common after its own; as text, the kind's text followed by
// Common's lines. A kind's report that has a field of Common is a bug, and
// an error here.
func Compose(rep Report, sum Summary) (data []byte, text string, err error) {
	if name, ok := commonField(reflect.TypeOf(rep)); ok {
		return nil, "", fmt.Errorf("report %T has the field %q, which the runtime fills", rep, name)
	}
	own, err := MarshalPlain(rep)
	if err != nil {
		return nil, "", fmt.Errorf("encode report: %w", err)
	}
	own = bytes.TrimSpace(own)
	if len(own) < 2 || own[0] != '{' {
		return nil, "", fmt.Errorf("report %T is not a JSON object", rep)
	}
	c := CommonOf(sum)
	common, err := MarshalPlain(c)
	if err != nil {
		return nil, "", err
	}
	data = make([]byte, 0, len(own)+len(common))
	data = append(data, own[:len(own)-1]...)
	if len(own) > 2 {
		data = append(data, ',')
	}
	data = append(data, common[1:]...)
	return data, rep.Text() + c.Text(), nil
}

// MarshalPlain is json.Marshal without HTML escaping: a report's text stays
// as it is ("<stdin>:3", "k <= 5"), since a report is JSON, never HTML.
func MarshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// commonNames are the JSON names of Common's fields.
var commonNames = func() map[string]bool {
	names := map[string]bool{}
	t := reflect.TypeFor[Common]()
	for i := range t.NumField() {
		names[jsonName(t.Field(i))] = true
	}
	return names
}()

// commonField returns the first JSON field of t (a struct or a pointer to
// one, embedded structs included) that Common has too.
func commonField(t reflect.Type) (string, bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return "", false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			if name, ok := commonField(f.Type); ok {
				return name, true
			}
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		if name := jsonName(f); commonNames[name] {
			return name, true
		}
	}
	return "", false
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// Results keeps the result of each task until the report reads them: the
// Merge of a plan whose report needs every result at once. Make it with
// make(Results).
type Results map[string][]byte

// Merge implements Plan's Merge: it keeps data under id.
func (r Results) Merge(id string, data []byte) error {
	r[id] = data
	return nil
}

// Result returns the merged result of task id; ok is false for a task that
// failed.
func (r Results) Result(id string) (data []byte, ok bool) {
	data, ok = r[id]
	return data, ok
}
