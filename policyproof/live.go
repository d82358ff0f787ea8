package policyproof

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/runner"
	"github.com/oceancode/oceancode/agent/server"
	"github.com/oceancode/oceancode/layers"
)

// liveSwitchPath names the live switch in the results.
const liveSwitchPath = "live switch over the HTTP API (loopback)"

// noModel is the provider of doctor's probe sessions: they never send a
// prompt, so a model call is a bug, refused.
type noModel struct{}

func (noModel) Stream(context.Context, provider.Request, func(provider.Event)) (provider.Response, error) {
	return provider.Response{}, errors.New("policyproof: the probe session makes no model calls")
}

// liveMode proves a locked-out mode cannot be reached by the live switch:
// a real server on 127.0.0.1:0 (in this process, with a one-time token)
// over a session built with the same gate as run's, then POST
// /api/session/{id}/permission/mode as a client would.
func (p *prover) liveMode(base *layers.Resolved, mode string) {
	lock := Lock{Mode, mode}
	g, err := p.gateFor(base, "")
	if err != nil {
		p.notRun(lock, liveSwitchPath, err)
		return
	}
	got, err := switchOverHTTP(func(ctx context.Context) (*runner.Session, error) {
		return runner.Start(ctx, runner.Options{Turn: agent.Config{Agent: agent.Build, Model: "none", Provider: noModel{}, Gate: g}, Interactive: true})
	}, mode)
	switch {
	case err != nil:
		p.notRun(lock, liveSwitchPath, err)
	case got.Mode == mode:
		p.add(lock, liveSwitchPath, Broken, "the switch took effect: the session runs in "+mode)
	case !got.Downgraded || got.Reason == "":
		p.add(lock, liveSwitchPath, Broken, "downgraded to "+got.Mode+" without a word: the answer does not say so")
	default:
		p.add(lock, liveSwitchPath, Held, "downgraded to "+got.Mode+", and the answer says why: "+got.Reason)
	}
}

// liveAnswer is the mode switch's answer.
type liveAnswer struct {
	Mode       string `json:"mode"`
	Requested  string `json:"requested"`
	Downgraded bool   `json:"downgraded"`
	Reason     string `json:"reason"`
}

// switchOverHTTP serves one session on a loopback port and asks for mode
// through POST …/permission/mode.
func switchOverHTTP(newSession func(context.Context) (*runner.Session, error), mode string) (liveAnswer, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return liveAnswer{}, err
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return liveAnswer{}, fmt.Errorf("listen on loopback: %w", err)
	}
	defer ln.Close()
	srv, err := server.New(server.Config{Token: token, Addr: ln.Addr().String(),
		NewSession: func(ctx context.Context, _ server.CreateRequest) (*runner.Session, error) { return newSession(ctx) },
		Inspect:    func() ([]byte, error) { return []byte(`{}`), nil }})
	if err != nil {
		return liveAnswer{}, err
	}
	defer srv.Close()
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	url := "http://" + ln.Addr().String()
	post := func(path string, body any, want int, out any) error {
		b, _ := json.Marshal(body)
		req, err := http.NewRequest("POST", url+path, bytes.NewReader(b))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("POST %s: %w", path, err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			return fmt.Errorf("POST %s: %s: %s", path, resp.Status, bytes.TrimSpace(data))
		}
		return json.Unmarshal(data, out)
	}
	var st struct{ ID string }
	if err := post("/api/session", map[string]any{}, http.StatusOK, &st); err != nil {
		return liveAnswer{}, err
	}
	var got liveAnswer
	err = post("/api/session/"+st.ID+"/permission/mode", map[string]string{"mode": mode}, http.StatusOK, &got)
	return got, err
}
