package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/oceancode/oceancode/agent/session"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/report"
	"github.com/oceancode/oceancode/sessionconfig"
)

// usageTotals adds up the tokens of the stored sessions whose directory is
// dir or below it, each priced at its model's price. It reads an existing
// store and never creates one (inspect writes nothing); nil when there is
// no store or it cannot be read.
func usageTotals(ctx context.Context, app *App, res *layers.Resolved, dir string) *report.Usage {
	path := sessionsDB(app)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	st, err := session.Open(ctx, path)
	if err != nil {
		return nil
	}
	defer st.Close()
	list, err := st.List(ctx, session.ListOptions{})
	if err != nil {
		return nil
	}
	u := &report.Usage{}
	for _, s := range list {
		if s.Cwd != dir && !strings.HasPrefix(s.Cwd, dir+string(filepath.Separator)) {
			continue
		}
		u.Sessions++
		u.InputTokens += s.Usage.InputTokens
		u.OutputTokens += s.Usage.OutputTokens
		u.CacheReadTokens += s.Usage.CacheReadTokens
		u.CacheWriteTokens += s.Usage.CacheWriteTokens
		name, model, _ := strings.Cut(s.Model, "/")
		pc, _, err := sessionconfig.Provider(name).Decode(res)
		if p := sessionconfig.ModelInfo(pc, model).Price; err == nil && p != nil {
			u.CostUSD += p.Cost(s.Usage)
		} else {
			u.Unpriced++
		}
	}
	return u
}
