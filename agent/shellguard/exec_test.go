package shellguard

import "testing"

// TestExecExpansions: expansions that make bash run commands from a
// variable's value are never safe, even under an allow-everything rule;
// when the value is known its code is classified.
func TestExecExpansions(t *testing.T) {
	cases := []vcase{
		{"echo ${x@P}", Ask, ""}, {`[[ -n "${x@P}" ]]`, Ask, ""}, {"case a in ${x@P}) ;; esac", Ask, ""}, {"cat <<EOF\n${x@P}\nEOF", Ask, ""},
		{"cat <<'EOF'\n${x@P}\nEOF", Safe, ""}, {`[[ -n "${x}" ]]`, Safe, ""}, {`bash -c 'ls' "${x@P}"`, Ask, ""}, {`eval ls "${x@P}"`, Ask, ""}, {`echo "${arr[@]@P}"`, Ask, ""}, {"x='$(rm -rf /)'; echo ${x@P}", Floor, ShapeRmRoot},
		{"echo ${!x}", Ask, ""}, {"x='a[$(rm -rf /)]'; echo ${!x}", Floor, ShapeRmRoot},
		{"echo $((x))", Ask, ""}, {"echo $((x+1))", Ask, ""}, {"echo $[x+1]", Ask, ""}, {"(( x ))", Ask, ""}, {"let x", Ask, ""},
		{"echo ${a[$x]}", Ask, ""}, {"echo ${a[x]}", Ask, ""}, {"echo ${s:$x}", Ask, ""}, {"echo ${s:0:n}", Ask, ""},
		{"a[$i]=1", Ask, ""}, {"declare -i n=$v", Ask, ""}, {"[[ $n -gt 3 ]]", Ask, ""}, {"[[ n -eq 1 ]]", Ask, ""},
		{"for ((i=0; i<n; i++)); do :; done", Ask, ""}, {"echo $(( $(cat f) ))", Ask, ""}, {`unset "$x"`, Ask, ""}, {"[[ $1 -gt 0 ]]", Ask, ""}, {"echo $(( $1 + 1 ))", Ask, ""},
		{"x='a[$(rm -rf /)]'; echo $((x))", Floor, ShapeRmRoot}, {"x='a[$(rm -rf /)]'; [[ x -eq 1 ]]", Floor, ShapeRmRoot},
		{"echo $(( a[$(rm -rf /)] ))", Floor, ShapeRmRoot}, {"[[ -v a[$(rm -rf /)] ]]", Floor, ShapeRmRoot},
		{"[[ -v 'a[$(rm -rf /)]' ]]", Floor, ShapeRmRoot}, {"test -v 'a[$(rm -rf /)]'", Floor, ShapeRmRoot},
		{"declare 'a[$(rm -rf /)]=1'", Floor, ShapeRmRoot}, {"unset 'a[$(rm -rf /)]'", Floor, ShapeRmRoot},
		{"printf -v 'a[$(rm -rf /)]' x", Floor, ShapeRmRoot}, {"read 'a[$(rm -rf /)]' <<< x", Floor, ShapeRmRoot},
		// what only transforms text, or reads what the guard knows
		{"echo ${x@Q}", Safe, ""}, {"echo ${x@E}", Safe, ""}, {"echo ${x@U}", Safe, ""}, {"echo ${#x}", Safe, ""},
		{"echo ${!pre*}", Safe, ""}, {"echo ${!arr[@]}", Safe, ""}, {"x=HOME; echo ${!x}", Safe, ""},
		{"echo $((1+2))", Safe, ""}, {"x=5; echo $((x*2))", Safe, ""}, {"echo $((RANDOM % 10))", Safe, ""},
		{"for ((i=0; i<10; i++)); do echo $i; done", Safe, ""}, {"[[ 5 -gt 3 ]]", Safe, ""}, {"test -v x", Safe, ""},
		{"echo ${a[@]}", Safe, ""}, {"[[ $# -gt 0 ]]", Safe, ""}, {"echo ${a[0]:-x}", Safe, ""},
	}
	runVerdicts(t, newTest(t, Config{}), cases)
	c := newTest(t, Config{Allow: []Rule{{Pattern: "*"}}})
	for _, tc := range cases {
		if tc.want == Ask {
			if r := c.Classify(tc.cmd, ""); r.Verdict.Allowed() {
				t.Errorf("Classify(%q) under allow(*) = %v (%s), want not allowed", tc.cmd, r.Verdict, r.Reason)
			}
		}
	}
}
