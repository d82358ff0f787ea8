// Package otlptest is a real OTLP/HTTP trace receiver on loopback for
// tests: it decodes the protobuf export requests (the OTLP proto package)
// and keeps the spans with their resource and events.
package otlptest

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span.
type Span struct {
	Name     string
	Scope    string
	Resource map[string]string
	Attrs    map[string]string
	Events   []Event
}

// Event is one span event.
type Event struct {
	Name  string
	Attrs map[string]string
}

// Receiver accepts POST /v1/traces (protobuf, optionally gzip-compressed).
type Receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	spans    []Span
	requests int
	errs     []string
	header   http.Header   // the last accepted request's
	hold     chan struct{} // non-nil: requests wait until it is closed
}

// New starts a receiver; Close stops it.
func New() *Receiver {
	r := &Receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	return r
}

// URL is the receiver's base URL (OTEL_EXPORTER_OTLP_ENDPOINT).
func (r *Receiver) URL() string { return r.srv.URL }

// Close stops the receiver (releasing held requests).
func (r *Receiver) Close() {
	r.Release()
	r.srv.CloseClientConnections()
	r.srv.Close()
}

// Hold makes requests wait until Release: a collector that does not answer.
func (r *Receiver) Hold() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hold == nil {
		r.hold = make(chan struct{})
	}
}

// Release answers the held requests and stops holding.
func (r *Receiver) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hold != nil {
		close(r.hold)
		r.hold = nil
	}
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	hold := r.hold
	r.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-req.Context().Done():
			return
		}
	}
	fail := func(code int, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		r.mu.Lock()
		r.errs = append(r.errs, msg)
		r.mu.Unlock()
		http.Error(w, msg, code)
	}
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		fail(http.StatusNotFound, "%s %s: not an OTLP trace export", req.Method, req.URL.Path)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		fail(http.StatusUnsupportedMediaType, "content type %q, want application/x-protobuf", ct)
		return
	}
	var rd io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			fail(http.StatusBadRequest, "gzip: %v", err)
			return
		}
		rd = zr
	}
	body, err := io.ReadAll(io.LimitReader(rd, 16<<20))
	if err != nil {
		fail(http.StatusBadRequest, "read body: %v", err)
		return
	}
	var m coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &m); err != nil {
		fail(http.StatusBadRequest, "decode export request: %v", err)
		return
	}
	var got []Span
	for _, rs := range m.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{Name: s.GetName(), Scope: ss.GetScope().GetName(), Resource: res, Attrs: attrs(s.GetAttributes())}
				for _, e := range s.GetEvents() {
					sp.Events = append(sp.Events, Event{Name: e.GetName(), Attrs: attrs(e.GetAttributes())})
				}
				got = append(got, sp)
			}
		}
	}
	r.mu.Lock()
	r.spans = append(r.spans, got...)
	r.requests++
	r.header = req.Header.Clone()
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// attrs renders attribute values as text (arrays comma-joined).
func attrs(kvs []*common.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.GetKey()] = value(kv.GetValue())
	}
	return m
}

func value(v *common.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *common.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *common.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *common.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, value(e))
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v)
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Requests is how many export requests were accepted; Errors lists the
// ones refused and why.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Header is the last accepted request's header.
func (r *Receiver) Header() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.header.Clone()
}

// Errors lists the refused requests.
func (r *Receiver) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

// Dump writes the spans as text, one line per span and one per event, with
// sorted attributes, for grep in scripts.
func (r *Receiver) Dump(w io.Writer) {
	line := func(prefix string, a map[string]string) {
		keys := make([]string, 0, len(a))
		for k := range a {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Fprint(w, prefix)
		for _, k := range keys {
			fmt.Fprintf(w, " %s=%q", k, a[k])
		}
		fmt.Fprintln(w)
	}
	for _, s := range r.Spans() {
		line("span "+s.Name, s.Attrs)
		line("  resource", s.Resource)
		for _, e := range s.Events {
			line("  event "+e.Name, e.Attrs)
		}
	}
	for _, e := range r.Errors() {
		fmt.Fprintf(w, "refused %s\n", e)
	}
}
