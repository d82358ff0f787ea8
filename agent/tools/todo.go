package tools

import "sync"

// TodoList is the session's todo list, kept by the todo tool.
type TodoList struct {
	mu    sync.Mutex
	items []Todo
}

// Todo is one item.
type Todo struct {
	Text   string `json:"text"`
	Status string `json:"status"` // pending, in_progress, done
}

// Set replaces the list.
func (l *TodoList) Set(items []Todo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append([]Todo(nil), items...)
}

// Items returns a copy of the list.
func (l *TodoList) Items() []Todo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Todo(nil), l.items...)
}
