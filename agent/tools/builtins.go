package tools

// Builtins returns the built-in tools, in the order they are offered to the
// model (a stable order keeps the request prefix cacheable).
func Builtins() []Tool {
	return []Tool{
		BashTool{}, ReadTool{}, WriteTool{}, EditTool{}, ApplyPatchTool{},
		GrepTool{}, GlobTool{}, ListTool{}, WebFetchTool{},
		QuestionTool{}, TodoTool{}, TaskTool{},
	}
}
