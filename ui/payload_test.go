package ui

import (
	"html"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// eventSpec waits in wait for GO, whose payload has a field of each kind.
const eventSpec = `lpp: 1
name: ev
initial: wait
states:
  wait:
    on:
      GO: [{to: done}]
  done: {final: true}
events:
  GO:
    payload:
      n: int
      f: {type: float, required: false}
      b: {type: bool, required: false}
      s: {type: string, default: dflt}
      e: {type: string, enum: [red, green], required: false}
      l: {type: list, required: false}
      m: {type: map, required: false}
      a: {type: any, required: false}
      ns: {type: string, nullable: true, required: false}
`

// addEventRun writes a run of eventSpec paused in wait for GO. The pause
// lists no payload fields: the form reads them from the run's spec.
func (f *fixture) addEventRun() string {
	f.t.Helper()
	return f.addEventRunOf(eventSpec)
}

// addEventRunOf is addEventRun with another spec that waits in wait for GO.
func (f *fixture) addEventRunOf(spec string) string {
	f.t.Helper()
	start := time.Date(2026, 11, 22, 3, 11, 36, 0, time.UTC)
	r, err := f.store.Create(runstore.Meta{Spec: "specs/ev.yaml", SpecName: "ev", Start: start, State: "wait", Fsync: runstore.FsyncNever}, []byte(spec))
	require.NoError(f.t, err)
	j, err := r.OpenJournal(runstore.FsyncNever)
	require.NoError(f.t, err)
	pause := &machine.PauseError{Kind: machine.PauseEvent, State: "wait", Prompt: "waits for GO", Options: []string{"GO"}}
	require.NoError(f.t, j.Mark(&runstore.Entry{Type: runstore.EntryPause, State: "wait", Pause: pause}))
	require.NoError(f.t, j.Close())
	r.Meta.Status, r.Meta.Pause = machine.StatusPaused, pause
	require.NoError(f.t, r.SaveMeta())
	r.Unlock()
	return r.Meta.ID
}

func TestTheEventFormTakesWhatResumePayloadTakesWithItsWords(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addEventRun()
	tests := []struct {
		name    string
		fields  url.Values
		payload string            // the --payload resume is given (when taken)
		errs    map[string]string // else the fields' errors, as resume words them
	}{
		{"an int written with a zero fraction is an int", url.Values{"p.n": {"3.0"}}, `{"n":3}`, nil},
		{"an int written with an exponent is an int", url.Values{"p.n": {" 1e3 "}}, `{"n":1000}`, nil},
		{"text in an int field is a string, refused as resume refuses it", url.Values{"p.n": {"abc"}}, "",
			map[string]string{"n": `payload field "n": the string "abc" is not an int`}},
		{"a required field left empty is refused as missing", url.Values{"p.n": {"  "}}, "",
			map[string]string{"n": `its payload lacks the required field "n" (int)`}},
		{"a required field given null is refused as null", url.Values{"p.n": {"null"}}, "",
			map[string]string{"n": `payload field "n" is null, but it is required (int)`}},
		{"a float takes an integral number", url.Values{"p.n": {"1"}, "p.f": {"2"}}, `{"f":2,"n":1}`, nil},
		{"a bool takes true", url.Values{"p.n": {"1"}, "p.b": {"true"}}, `{"b":true,"n":1}`, nil},
		{"a bool refuses yes", url.Values{"p.n": {"1"}, "p.b": {"yes"}}, "",
			map[string]string{"b": `payload field "b": the string "yes" is not a bool`}},
		{"an enum value outside the list is refused on its field", url.Values{"p.n": {"1"}, "p.e": {"blue"}}, "",
			map[string]string{"e": `payload field "e": "blue" is not one of ["red", "green"]`}},
		{"an enum value of the list is taken", url.Values{"p.n": {"1"}, "p.e": {"green"}}, `{"e":"green","n":1}`, nil},
		{"an optional string left empty is left out (its default)", url.Values{"p.n": {"1"}, "p.s": {""}}, `{"n":1}`, nil},
		{"an optional string ticked empty is sent as the empty string", url.Values{"p.n": {"1"}, "p.s": {""}, "e.s": {"1"}}, `{"n":1,"s":""}`, nil},
		{"a string keeps its spaces", url.Values{"p.n": {"1"}, "p.s": {"  "}}, `{"n":1,"s":"  "}`, nil},
		{"a string is the text, not JSON", url.Values{"p.n": {"1"}, "p.s": {"3"}}, `{"n":1,"s":"3"}`, nil},
		{"a string both typed and ticked empty is refused", url.Values{"p.n": {"1"}, "p.s": {"x"}, "e.s": {"1"}}, "",
			map[string]string{"s": `payload field "s": either type a value or tick "empty", not both`}},
		{"a list takes JSON", url.Values{"p.n": {"1"}, "p.l": {"[1, 2]"}}, `{"l":[1,2],"n":1}`, nil},
		{"a list refuses what is not JSON as the string it is", url.Values{"p.n": {"1"}, "p.l": {"[1,"}}, "",
			map[string]string{"l": `payload field "l": the string "[1," is not a list`}},
		{"a map takes JSON", url.Values{"p.n": {"1"}, "p.m": {`{"k": true}`}}, `{"m":{"k":true},"n":1}`, nil},
		{"a map refuses a list", url.Values{"p.n": {"1"}, "p.m": {`[]`}}, "",
			map[string]string{"m": `payload field "m": a list is not a map`}},
		{"any takes JSON, else the text", url.Values{"p.n": {"1"}, "p.a": {"hello"}}, `{"a":"hello","n":1}`, nil},
		{"any takes a JSON number", url.Values{"p.n": {"1"}, "p.a": {"3"}}, `{"a":3,"n":1}`, nil},
		{"a nullable string takes its text", url.Values{"p.n": {"1"}, "p.ns": {"x"}}, `{"n":1,"ns":"x"}`, nil},
		{"a float beyond a number's range is refused on its field", url.Values{"p.n": {"1"}, "p.f": {"1e400"}}, "",
			map[string]string{"f": `payload field "f": 1e400 is beyond a number's range (±1.8e308); give a smaller one`}},
		{"a list holding a number beyond the range is refused", url.Values{"p.n": {"1"}, "p.l": {"[1, -2e308]"}}, "",
			map[string]string{"l": `payload field "l": -2e308 is beyond a number's range (±1.8e308); give a smaller one`}},
		{"every refused field is refused at once", url.Values{"p.n": {"x"}, "p.b": {"2"}}, "",
			map[string]string{"n": `payload field "n": the string "x" is not an int`, "b": `payload field "b": the number 2 is not a bool`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.got = nil
			form := url.Values{"pause_step": {"0"}, "kind": {"event"}, "event": {"GO"}}
			for k, v := range tt.fields {
				form[k] = v
			}
			w := f.do("POST", "/runs/"+id+"/decide", form.Encode())
			body := w.Body.String()
			if tt.errs == nil {
				require.Equal(t, http.StatusSeeOther, w.Code, body)
				assert.Equal(t, []Decision{{Run: id, Kind: "event", Event: "GO", Payload: tt.payload}}, f.got)
				return
			}
			require.Equal(t, http.StatusBadRequest, w.Code, body)
			assert.Empty(t, f.got, "no decision may be tried")
			for name, msg := range tt.errs {
				assert.Contains(t, body, `<span class="err field-error" id="err-p-`+name+`">`+html.EscapeString(msg)+`</span>`)
				if len(tt.errs) == 1 {
					assert.Contains(t, body, `<span id="error-message">`+html.EscapeString(`cannot fire event "GO": `+msg)+`</span>`)
				}
			}
			for k, v := range tt.fields {
				switch k {
				case "p.e", "p.b", "e.s": // selects and boxes
				case "p.l", "p.m":
					assert.Contains(t, body, `>`+html.EscapeString(v[0])+`</textarea>`, "what was typed is kept")
				default:
					assert.Contains(t, body, `name="`+k+`" value="`+html.EscapeString(v[0])+`"`, "what was typed is kept")
				}
			}
		})
	}
}

func TestTheEventFormShowsDefaultsNullableAndTheEmptyBox(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addEventRun()
	body := f.do("GET", "/runs/"+id, "").Body.String()
	for _, want := range []string{
		`n <small>int, required</small><input name="p.n" value="" inputmode="decimal">`,
		`s <small>string, optional, default &#34;dflt&#34;</small><input name="p.s" value="" placeholder="left out: &#34;dflt&#34;">`,
		`<label class="empty"><input type="checkbox" name="e.s" value="1"> empty <code>""</code></label>`,
		`f <small>float, optional, default 0</small>`,
		`<option value="">(leave out: false)</option><option value="false">false</option><option value="true">true</option>`,
		`<option value="">(leave out: &#34;&#34;)</option><option value="&#34;red&#34;">red</option><option value="&#34;green&#34;">green</option>`,
		`l <small>list, optional, default []</small><textarea name="p.l" rows="1" placeholder="left out: []">`,
		`a <small>any, optional, default null</small>`,
		`ns <small>string, optional, default null, nullable</small>`,
	} {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, `name="e.n"`, "an int has no empty box")
	assert.NotContains(t, body, `name="e.e"`, "an enum has no empty box")

	// A refusal keeps the box ticked.
	w := f.do("POST", "/runs/"+id+"/decide", "pause_step=0&kind=event&event=GO&p.n=x&e.s=1")
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), `<input type="checkbox" name="e.s" value="1" checked>`)
}
