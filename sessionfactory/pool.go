package sessionfactory

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/remote"
)

// Pool is a process's model clients, one per provider configuration,
// shared by its sessions (a client is safe for concurrent calls). It is
// safe for concurrent use.
type Pool struct {
	mu sync.Mutex
	// first is a client started before the configuration was known (run
	// starts it while the layers load): the first configuration asked for
	// takes it.
	first   *remote.Client
	clients map[clientKey]*remote.Client
}

// clientKey is what makes two provider configurations one client.
type clientKey struct {
	typ, baseURL, apiKey string
	stream               bool
	// headers is the header map in one canonical form (headerKey): a
	// map is not comparable.
	headers string
}

func keyOf(cfg provider.Config) clientKey {
	return clientKey{typ: cfg.Type, baseURL: cfg.BaseURL, apiKey: cfg.APIKey, stream: cfg.Stream, headers: headerKey(cfg.Headers)}
}

// headerKey is h sorted by name, each name and value quoted, so two maps
// give one key exactly when they are equal.
func headerKey(h map[string]string) string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(strconv.Quote(k) + strconv.Quote(h[k]))
	}
	return b.String()
}

// NewPool returns a pool; first, if not nil, is a client already started
// that the first configuration asked for takes (run's early start).
func NewPool(first *remote.Client) *Pool {
	return &Pool{first: first, clients: map[clientKey]*remote.Client{}}
}

// Provider returns the client for cfg, configuring a new one the first
// time cfg is asked for (sessionconfig.Host.Provider).
func (p *Pool) Provider(cfg provider.Config) (provider.Provider, error) {
	key := keyOf(cfg)
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.clients[key]; c != nil {
		return c, nil
	}
	c := p.first
	p.first = nil
	if c == nil {
		c = remote.Start()
	}
	if err := c.Configure(cfg); err != nil {
		c.Close()
		return nil, err
	}
	p.clients[key] = c
	return c, nil
}

// Close stops every client of the pool.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.first != nil {
		p.first.Close()
		p.first = nil
	}
	for k, c := range p.clients {
		c.Close()
		delete(p.clients, k)
	}
}
