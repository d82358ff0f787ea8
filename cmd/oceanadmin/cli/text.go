package cli

import (
	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/policycheck"
	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/schema"
)

// textViolations are the free-text members of a JSON document that hold a
// character free text may not hold (policycheck.Text); none for a document
// that does not parse (the schema check reports that).
func textViolations(file string, data []byte) []schema.Violation {
	doc, err := jsonpos.Parse(data, jsonpos.Options{MaxDepth: schema.MaxConfigDepth})
	if err != nil {
		return nil
	}
	return policycheck.Text(file, doc)
}

// refuseText fails closed on a requirements payload whose free text holds
// a control character, line separator or bidirectional override: sign and
// package write nothing for it (exit 3, as an invalid policy).
func refuseText(file string, payload []byte) error {
	if v := textViolations(file, payload); len(v) > 0 {
		return &requirements.InvalidError{File: file, Violations: v}
	}
	return nil
}
