package gate

// KeyKind is keyKind, for the external test that checks the tools agree.
var KeyKind = keyKind
