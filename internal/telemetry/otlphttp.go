package telemetry

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
)

// httpOptions turns the standard OTEL_EXPORTER_OTLP_* variables (read
// through getenv, so tests and the CLI's environment decide) into the
// options of the SDK's OTLP/HTTP exporter (otlptracehttp), which speaks the
// wire protocol. The variables are checked here first: a bad endpoint,
// header, timeout, compression or certificate is an error at Start, where
// the exporter on its own would log it and fall back to a default. A
// failed export is not retried (the exit flush has a deadline).
type httpOptions struct {
	endpoint string
	headers  map[string]string
	gzip     bool
	timeout  time.Duration
	tls      *tls.Config
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
	c := &httpOptions{endpoint: "http://localhost:4318/v1/traces", headers: map[string]string{}, timeout: 10 * time.Second}
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
	tr := c
	if ca := otlpEnv(getenv, "CERTIFICATE"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE %s: no PEM certificate", ca)
		}
		tr.tls = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	if cert, key := otlpEnv(getenv, "CLIENT_CERTIFICATE"), otlpEnv(getenv, "CLIENT_KEY"); cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE/CLIENT_KEY: %w", err)
		}
		if tr.tls == nil {
			tr.tls = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		tr.tls.Certificates = []tls.Certificate{pair}
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(c.endpoint), otlptracehttp.WithHeaders(c.headers),
		otlptracehttp.WithTimeout(c.timeout), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false})}
	if c.gzip {
		opts = append(opts, otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
	}
	if c.tls != nil {
		opts = append(opts, otlptracehttp.WithTLSClientConfig(c.tls))
	}
	return otlptracehttp.NewClient(opts...), nil
}
