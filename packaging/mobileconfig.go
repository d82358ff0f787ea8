package packaging

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Profile file names and payload identifiers. The identifiers are stable,
// so an MDM that installs a new profile with the same identifier replaces
// the old one; the UUIDs change with the content.
const (
	PolicyProfile      = "oceancode-policy.mobileconfig"
	TrustedKeysProfile = "oceancode-trusted-keys.mobileconfig"
	policyIdentifier   = Domain + ".policy"
	keysIdentifier     = Domain + ".trusted-keys"
)

// plist values, written by hand: the profile is a small, fixed shape, and
// no plist library is served to this build.
type (
	plistDict  []plistEntry
	plistEntry struct {
		key   string
		value any
	}
	plistData  []byte
	plistArray []any
)

// mobileconfig writes two configuration profiles for preference domain
// dev.oceancode: the policy (the managed config as a string, the signed
// requirements as data so the envelope's bytes survive, the serial and
// payload hash), and, separately, the trusted keys (rotated on their own
// schedule and scoped more widely).
func mobileconfig(in Inputs) ([]Artefact, error) {
	policy := plistDict{}
	if in.Managed != nil {
		policy = append(policy, plistEntry{ValueManaged, string(in.Managed)})
	}
	policy = append(policy,
		plistEntry{ValueRequirements, plistData(in.Requirements)},
		plistEntry{"PolicySerial", in.Policy.Serial},
		plistEntry{"PayloadSHA256", in.Policy.PayloadSHA256},
	)
	keys := plistDict{{ValueTrustedKeys, string(in.TrustedKeys)}}
	desc := in.banner() + "."
	return []Artefact{
		{PolicyProfile, profile(in, policyIdentifier, fmt.Sprintf("OceanCode policy (serial %d)", in.Policy.Serial),
			desc+" Managed preferences for "+Domain+": the managed config and the signed requirements.", policy)},
		{TrustedKeysProfile, profile(in, keysIdentifier, "OceanCode trusted keys",
			desc+" Managed preferences for "+Domain+": the public keys that verify the requirements.", keys)},
	}, nil
}

// profile is one configuration profile holding one payload of type Domain
// (a custom-settings payload: the keys become forced managed preferences
// in /Library/Managed Preferences/dev.oceancode.plist).
func profile(in Inputs, identifier, name, desc string, settings plistDict) []byte {
	body := render(settings)
	payloadUUID := contentUUID(identifier+".payload", body)
	payload := append(plistDict{
		{"PayloadType", Domain},
		{"PayloadIdentifier", identifier + ".payload"},
		{"PayloadUUID", payloadUUID},
		{"PayloadVersion", int64(1)},
		{"PayloadDisplayName", name},
		{"PayloadDescription", desc},
	}, settings...)
	top := plistDict{
		{"PayloadType", "Configuration"},
		{"PayloadVersion", int64(1)},
		{"PayloadIdentifier", identifier},
		{"PayloadUUID", contentUUID(identifier, body)},
		{"PayloadDisplayName", name},
		{"PayloadDescription", desc},
	}
	if in.Policy.Org != "" {
		top = append(top, plistEntry{"PayloadOrganization", in.Policy.Org})
	}
	top = append(top,
		plistEntry{"PayloadScope", "System"},
		plistEntry{"PayloadRemovalDisallowed", true},
		plistEntry{"PayloadContent", plistArray{payload}},
	)
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString("<!-- " + in.stamp() + " -->\n")
	b.WriteString(`<plist version="1.0">` + "\n")
	writeValue(&b, top, 0)
	b.WriteString("</plist>\n")
	return []byte(b.String())
}

func render(v any) string {
	var b strings.Builder
	writeValue(&b, v, 0)
	return b.String()
}

func writeValue(b *strings.Builder, v any, depth int) {
	ind := strings.Repeat("\t", depth)
	switch v := v.(type) {
	case plistDict:
		b.WriteString(ind + "<dict>\n")
		for _, e := range v {
			b.WriteString(ind + "\t<key>" + xmlText(e.key) + "</key>\n")
			writeValue(b, e.value, depth+1)
		}
		b.WriteString(ind + "</dict>\n")
	case plistArray:
		b.WriteString(ind + "<array>\n")
		for _, e := range v {
			writeValue(b, e, depth+1)
		}
		b.WriteString(ind + "</array>\n")
	case plistData:
		// Base64 in lines of 68 characters, as Apple's tools write it.
		enc := base64.StdEncoding.EncodeToString(v)
		b.WriteString(ind + "<data>\n")
		for len(enc) > 0 {
			n := min(68, len(enc))
			b.WriteString(ind + enc[:n] + "\n")
			enc = enc[n:]
		}
		b.WriteString(ind + "</data>\n")
	case string:
		b.WriteString(ind + "<string>" + xmlText(v) + "</string>\n")
	case int64:
		fmt.Fprintf(b, "%s<integer>%d</integer>\n", ind, v)
	case bool:
		if v {
			b.WriteString(ind + "<true/>\n")
		} else {
			b.WriteString(ind + "<false/>\n")
		}
	default:
		panic(fmt.Sprintf("packaging: plist value of type %T", v))
	}
}
