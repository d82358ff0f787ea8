package runner

import (
	"github.com/oceancode/oceancode/agent/commands"
	"github.com/oceancode/oceancode/agent/engineapi"
)

// commandInfos lists a session's custom commands for its State (the
// pager's / menu, GET /api/session/{id}).
func commandInfos(set *commands.Set) []engineapi.CommandInfo {
	if set == nil || len(set.List) == 0 {
		return nil
	}
	out := make([]engineapi.CommandInfo, len(set.List))
	for i, c := range set.List {
		out[i] = engineapi.CommandInfo{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint}
	}
	return out
}
