package metrics

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Names returns the names of the series that a wopr process exposes: its
// own (a histogram as its _bucket, _sum and _count series) and those of the
// Go and process collectors, sorted. The dashboard's test checks its
// queries against them.
func Names() []string {
	r := New()
	r.reg.MustRegister(r.pending, r.inFlight)
	// Every hook once, so that every vector has a series to show.
	r.TaskDone("k", 1)
	r.TaskFailed("k")
	r.TaskRetried("k")
	r.TaskRedelivered("k")
	r.CacheHits("k", 1)
	r.ResultMerged("k")
	r.TaskCached("k")
	r.TaskDeadLettered("k")
	r.Jobs("done", 1)
	mfs, err := r.reg.Gather()
	if err != nil {
		panic(err) // a metric that does not gather is a bug in New
	}
	var names []string
	for _, mf := range mfs {
		name := mf.GetName()
		switch mf.GetType() {
		case dto.MetricType_HISTOGRAM:
			names = append(names, name+"_bucket", name+"_sum", name+"_count")
		case dto.MetricType_SUMMARY:
			names = append(names, name, name+"_sum", name+"_count")
		default:
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Samples are the values of a scrape by series: the name, then the labels
// sorted by name, as in wopr_jobs{state="done"}.
type Samples map[string]float64

// Series names a series: name and label pairs (name, value, name, value...).
func Series(name string, labels ...string) string {
	if len(labels) == 0 {
		return name
	}
	pairs := make([]string, 0, len(labels)/2)
	for i := 0; i+1 < len(labels); i += 2 {
		pairs = append(pairs, fmt.Sprintf("%s=%q", labels[i], labels[i+1]))
	}
	sort.Strings(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// Get returns the value of a series (see Series) and whether the scrape
// had it.
func (s Samples) Get(name string, labels ...string) (float64, bool) {
	v, ok := s[Series(name, labels...)]
	return v, ok
}

// Parse reads metrics in Prometheus's text format.
func Parse(r io.Reader) (Samples, error) {
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	s := Samples{}
	for name, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName(), l.GetValue())
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				s[Series(name, labels...)] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				s[Series(name, labels...)] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					le := fmt.Sprint(b.GetUpperBound())
					s[Series(name+"_bucket", append(labels, "le", le)...)] = float64(b.GetCumulativeCount())
				}
				s[Series(name+"_bucket", append(labels, "le", "+Inf")...)] = float64(h.GetSampleCount())
				s[Series(name+"_sum", labels...)] = h.GetSampleSum()
				s[Series(name+"_count", labels...)] = float64(h.GetSampleCount())
			case dto.MetricType_SUMMARY:
				sm := m.GetSummary()
				for _, q := range sm.GetQuantile() {
					s[Series(name, append(labels, "quantile", fmt.Sprint(q.GetQuantile()))...)] = q.GetValue()
				}
				s[Series(name+"_sum", labels...)] = sm.GetSampleSum()
				s[Series(name+"_count", labels...)] = float64(sm.GetSampleCount())
			default:
				s[Series(name, labels...)] = m.GetUntyped().GetValue()
			}
		}
	}
	return s, nil
}

// Scrape reads the metrics served at url (http://HOST:PORT/metrics).
func Scrape(ctx context.Context, url string) (Samples, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	return Parse(resp.Body)
}
