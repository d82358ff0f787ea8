package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/oceancode/oceancode/agent/gate"
	"github.com/oceancode/oceancode/agent/provider"
)

// QuestionTool puts a question to the user through Env.Ask. Where no user
// can answer (a headless run, Ask nil) the model is told so and to decide
// for itself.
type QuestionTool struct{}

var questionDef = provider.ToolDef{
	Name:        "question",
	Description: "Ask the user a question when you cannot proceed without their choice.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"},"options":{"type":"array","items":{"type":"string"}}},"required":["question"],"additionalProperties":false}`),
}

// Def implements Tool.
func (QuestionTool) Def() provider.ToolDef { return questionDef }

// Kind implements Tool: nothing a guard reads.
func (QuestionTool) Kind() gate.Kind { return gate.KindNone }

func parseQuestion(input json.RawMessage) (Question, error) {
	var q Question
	if err := decode("question", input, &q, "question"); err != nil {
		return q, err
	}
	if q.Text == "" {
		return q, errors.New("question: question is empty")
	}
	return q, nil
}

// Target implements Tool: the question.
func (QuestionTool) Target(input json.RawMessage) (Target, error) {
	q, err := parseQuestion(input)
	if err != nil {
		return Target{}, err
	}
	return Target{Tool: "question", Input: q.Text}, nil
}

// Run implements Tool.
func (QuestionTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	q, err := parseQuestion(input)
	if err != nil {
		return errorResult(err)
	}
	if env.Ask == nil {
		return Result{Content: "No user can answer questions in this run. Decide yourself, say what you assumed, and go on.", IsError: true,
			Meta: map[string]any{"answered": false}}
	}
	a, err := env.Ask(ctx, q)
	if err != nil {
		return errResult("question: no answer: %v", err)
	}
	return Result{Content: fmt.Sprintf("The user answered: %s", a), Meta: map[string]any{"answered": true}}
}
