package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// httpClient is the OTLP/HTTP protobuf transport under the SDK's exporter
// (otlptrace.Client): the SDK converts and batches the spans, this posts
// them. It stands in for the SDK's otlptracehttp, whose configuration
// package links all of gRPC — measured on 2026-12-02 (docs/benchmarks.md,
// "One house — start-up"): +6 MiB of resident memory and ~7 MB of binary
// in every oceancode process, telemetry on or off, which is most of what
// `oceancode --version` grew by since the turn-2 build. The standard
// OTEL_EXPORTER_OTLP_* variables (read through getenv, so tests and the
// CLI's environment decide) are checked here: a bad endpoint, header,
// timeout, compression or certificate is an error at Start. A failed export
// is not retried (the exit flush has a deadline). An export request is the
// same protobuf message as TracesData (OTLP: ExportTraceServiceRequest and
// TracesData are wire-compatible); the loopback receiver in otlptest
// decodes it as the collector's ExportTraceServiceRequest.
type httpClient struct {
	endpoint string
	headers  map[string]string
	gzip     bool
	timeout  time.Duration
	tls      *tls.Config
	client   *http.Client
}

// otlpEnv reads OTEL_EXPORTER_OTLP_TRACES_<name>, else
// OTEL_EXPORTER_OTLP_<name>.
func otlpEnv(getenv func(string) string, name string) string {
	if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
		return v
	}
	return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name))
}

func newHTTPClient(getenv func(string) string) (otlptrace.Client, error) {
	c := &httpClient{endpoint: "http://localhost:4318/v1/traces", headers: map[string]string{}, timeout: 10 * time.Second}
	if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); v != "" {
		c.endpoint = v // a signal's endpoint is used as given
	} else if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); v != "" {
		c.endpoint = strings.TrimSuffix(v, "/") + "/v1/traces"
	}
	u, err := url.Parse(c.endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q: want an http:// or https:// URL", c.endpoint)
	}
	if v := otlpEnv(getenv, "HEADERS"); v != "" {
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_HEADERS: %q is not key=value", strings.TrimSpace(kv))
			}
			if dec, err := url.QueryUnescape(strings.TrimSpace(val)); err == nil {
				val = dec
			}
			c.headers[k] = strings.TrimSpace(val)
		}
	}
	if v := otlpEnv(getenv, "TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT %q: want milliseconds", v)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	switch v := otlpEnv(getenv, "COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION %q: want gzip or none", v)
	}
	if ca := otlpEnv(getenv, "CERTIFICATE"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE %s: no PEM certificate", ca)
		}
		c.tls = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	if cert, key := otlpEnv(getenv, "CLIENT_CERTIFICATE"), otlpEnv(getenv, "CLIENT_KEY"); cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE/CLIENT_KEY: %w", err)
		}
		if c.tls == nil {
			c.tls = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		c.tls.Certificates = []tls.Certificate{pair}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = c.tls
	c.client = &http.Client{Transport: tr}
	return c, nil
}

func (c *httpClient) Start(context.Context) error { return nil }

func (c *httpClient) Stop(context.Context) error {
	c.client.CloseIdleConnections()
	return nil
}

// UploadTraces sends one export request and waits for the collector's
// answer (at most the configured timeout, or ctx's deadline).
func (c *httpClient) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	body, err := proto.Marshal(&tracepb.TracesData{ResourceSpans: spans})
	if err != nil {
		return fmt.Errorf("encode export request: %w", err)
	}
	if c.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body)
		if err := zw.Close(); err != nil {
			return fmt.Errorf("compress export request: %w", err)
		}
		body = b.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("export to %s: %w", c.endpoint, err)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("export to %s: %w", c.endpoint, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("export to %s: %s: %s", c.endpoint, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
