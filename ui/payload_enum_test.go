package ui

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// enumSpec waits for GO, whose enums list the empty string: a required one
// and an optional one whose default is another value.
const enumSpec = `lpp: 1
name: en
initial: wait
states:
  wait:
    on:
      GO: [{to: done}]
  done: {final: true}
events:
  GO:
    payload:
      c: {type: string, enum: ["", red]}
      d: {type: string, enum: ["", red], default: red}
`

// TestAnEnumThatListsTheEmptyStringOffersItApartFromLeavingTheFieldOut:
// resume --payload takes "" for an enum that lists it, and an optional
// field left out carries its default. The form's select offered "" as an
// option whose value was also the "(leave out)" option's, so choosing ""
// left the field out: a required field was refused as missing ("its
// payload lacks the required field"), an optional one got its default.
func TestAnEnumThatListsTheEmptyStringOffersItApartFromLeavingTheFieldOut(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addEventRunOf(enumSpec)
	page := f.do("GET", "/runs/"+id, "").Body.String()
	assert.Contains(t, page, `<select name="p.c" id="p-wait-c"><option value="&#34;&#34;">&#34;&#34; (empty)</option><option value="&#34;red&#34;">red</option></select>`)
	assert.Contains(t, page, `<select name="p.d" id="p-wait-d"><option value="">(leave out: &#34;red&#34;)</option><option value="&#34;&#34;">&#34;&#34; (empty)</option><option value="&#34;red&#34;">red</option></select>`,
		"no option is selected: the browser shows the first, which leaves d out")

	tests := []struct {
		name    string
		fields  url.Values
		payload string
	}{
		{`the required enum's "" is sent as ""`, url.Values{"p.c": {`""`}, "p.d": {""}}, `{"c":""}`},
		{`the optional enum's "" is sent as "", not left out`, url.Values{"p.c": {`"red"`}, "p.d": {`""`}}, `{"c":"red","d":""}`},
		{"the optional enum left out carries its default", url.Values{"p.c": {`"red"`}, "p.d": {""}}, `{"c":"red"}`},
		{"a hand-made post may give the value bare", url.Values{"p.c": {"red"}, "p.d": {"red"}}, `{"c":"red","d":"red"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.got = nil
			form := url.Values{"pause_step": {"0"}, "kind": {"event"}, "event": {"GO"}}
			for k, v := range tt.fields {
				form[k] = v
			}
			w := f.do("POST", "/runs/"+id+"/decide", form.Encode())
			require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
			assert.Equal(t, []Decision{{Run: id, Kind: "event", Event: "GO", Payload: tt.payload}}, f.got)
		})
	}

	t.Run("a refused form keeps the choice made", func(t *testing.T) {
		f.got = nil
		form := url.Values{"pause_step": {"0"}, "kind": {"event"}, "event": {"GO"}, "p.c": {`"blue"`}, "p.d": {`""`}}
		w := f.do("POST", "/runs/"+id+"/decide", form.Encode())
		require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
		assert.Empty(t, f.got)
		assert.Contains(t, w.Body.String(), `payload field &#34;c&#34;: &#34;blue&#34; is not one of [&#34;&#34;, &#34;red&#34;]`)
		assert.Contains(t, w.Body.String(), `<option value="&#34;&#34;" selected>&#34;&#34; (empty)</option>`)
	})
}
