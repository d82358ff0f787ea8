// Package permission is OceanCode's permission engine: it decides whether a
// tool call is allowed, asks the user, or is denied, and says which rule,
// from which configuration layer, decided.
//
// The engine is pure: it reads no files, runs nothing and imports no config
// package. The CLI turns the resolved configuration into a Config (rules with
// their provenance, the permission mode, the locks the requirements impose)
// and the runtime hands every tool call to Engine.Evaluate as a Call. For a
// bash call the shell guard's verdict (agent/shellguard) arrives as plain
// input in Call.Shell.
//
// # Evaluation
//
// The dangerous floor comes first: a shell verdict of "floor" is a deny that
// nothing reopens — no mode, no allow rule, no session approval. Then the
// rules decide, last match wins, over these tiers:
//
//  1. the base rule "* * allow", the agent's defaults, the config rules in
//     layer order, then the agent's own configured rules;
//  2. the agent's restrictions (plan: edit denied except its plan file;
//     explore: read-only tools only) — they can only narrow;
//  3. the mode's rules (acceptEdits: edit allow; plan: edit deny except the
//     plan file, bash ask; bypassPermissions: "* * allow") — appended like
//     any rule, but a mode never reopens a deny;
//  4. the requirements' deny and ask rules — they can only narrow.
//
// Under dontAsk every ask that remains becomes a deny (a conversion after
// matching, not a rule). Every Decision carries the Rule that decided, its
// provenance Origin and a Reason, and Decision.Explain renders them, with the
// rule that would approve an ask.
//
// See docs/permissions.md for the full semantics and examples.
package permission
