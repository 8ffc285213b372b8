// Go oracle for tests/gotemplate/data/go_corpus.json: reads JSON lines on stdin and prints
// Go's answer for each as a JSON string. Modes (first element of each line):
//
//	["parse", text]                       -> reprint of trees (or "ERR <parse error>")
//	["exec", text, missingkey]            -> output (partial output + "ERR <error>")
//	["printf", format, arg...]            -> fmt.Sprintf result
//
// Args and data use tagged JSON: {"i":1} int, {"f":1.5} float64, {"s":"x"}, {"b":true},
// {"n":0} nil, {"y":"ab"} []byte, {"l":[...]}, {"m":{...}}.
// Build: cd tests/gotemplate/data/oracle && go build -o /tmp/gooracle .
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/template"
	"text/template/parse"
)

type Obj struct{ Name string }

func (o *Obj) Greet(s string) string { return "hi " + s }
func (o *Obj) String() string         { return "OBJ" }

func conv(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for k, x := range m {
		switch k {
		case "i":
			return int(x.(float64))
		case "f", "s", "b":
			return x
		case "y":
			return []byte(x.(string))
		case "l":
			out := []any{}
			for _, e := range x.([]any) {
				out = append(out, conv(e))
			}
			return out
		case "m":
			out := map[string]any{}
			for kk, e := range x.(map[string]any) {
				out[kk] = conv(e)
			}
			return out
		}
	}
	return nil
}

var funcs = template.FuncMap{
	"upper":   strings.ToUpper,
	"trunc":   func(c int, s string) string { if c < len(s) { return s[:c] }; return s },
	"fail":    func(s string) (string, error) { return "", errors.New(s) },
	"list":    func(v ...any) []any { return v },
	"dict":    func(v ...any) map[string]any { m := map[string]any{}; for i := 0; i+1 < len(v); i += 2 { m[v[i].(string)] = v[i+1] }; return m },
	"obj":     func() *Obj { return &Obj{Name: "n"} },
	"addf":    func(a, b float64) float64 { return a + b },
	"join":    func(sep string, l []any) string { s := []string{}; for _, x := range l { s = append(s, fmt.Sprint(x)) }; return strings.Join(s, sep) },
	"fn":      func() any { return func(a, b string) string { return a + b } },
	"add64":   func(a, b int) int64 { return int64(a + b) },
	"takes64": func(a int64) int64 { return a * 2 },
	"greetp":  func(o *Obj) string { return "p:" + o.Name },
	"include": func(a string, b any) string { return a },
}

// execData is the data of every "exec" line (numbers are float64, as Helm's values).
var execData = `{"a": "x", "n": 2.0, "f": 1.5, "z": null, "t": true, "e": "", "l": [1.0, "b", null, [2.0]],
 "m": {"k": "v", "n": 3.0, "s": {"q": [1.0]}, "nil": null}, "em": {}, "el": []}`

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	builtins := template.FuncMap{}
	for _, n := range []string{"and", "or", "not", "len", "index", "slice", "print", "printf", "println", "html", "js", "urlquery", "call", "eq", "ne", "lt", "le", "gt", "ge"} {
		builtins[n] = fmt.Sprint
	}
	for sc.Scan() {
		var line []any
		json.Unmarshal(sc.Bytes(), &line)
		var out string
		switch line[0].(string) {
		case "parse":
			trees, err := parse.Parse("x", line[1].(string), "", "", map[string]any{"upper": 1, "include": 1}, builtins)
			if err != nil {
				out = "ERR " + err.Error()
				break
			}
			out = trees["x"].Root.String()
			if len(trees) > 1 {
				for _, k := range []string{"a", "b", "c"} {
					if t, ok := trees[k]; ok {
						out += " ||" + k + ":" + t.Root.String()
					}
				}
			}
		case "exec":
			t := template.New("gotpl").Funcs(funcs)
			if mk := line[2].(string); mk != "default" {
				t.Option("missingkey=" + mk)
			}
			if _, err := t.New("t0").Parse(line[1].(string)); err != nil {
				out = "ERR " + err.Error()
				break
			}
			data := map[string]any{}
			json.Unmarshal([]byte(execData), &data)
			data["O"] = &Obj{Name: "n"}
			var b strings.Builder
			if err := t.ExecuteTemplate(&b, "t0", data); err != nil {
				out = "ERR " + err.Error()
			} else {
				out = b.String()
			}
		case "printf":
			args := []any{}
			for _, a := range line[2:] {
				args = append(args, conv(a))
			}
			out = fmt.Sprintf(line[1].(string), args...)
		}
		b, _ := json.Marshal(out)
		fmt.Println(string(b))
	}
}
