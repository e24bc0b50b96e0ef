package llm

import "strings"

// A scripted reply can depend on the prompt, to script a model that behaves
// differently when some text (a library skill, a hint) is in its prompt:
//
//	replies:
//	  - role: optimizer
//	    when_prompt_contains: "Write the header first"   # the skill is in the prompt
//	    text: "[ATTEMPTS_COMPLETE] wrote the header first"
//	    repeat: true
//	  - role: optimizer
//	    when_prompt_lacks: "Write the header first"
//	    text: "[ATTEMPTS_COMPLETE] forgot the header"
//
// A reply with a condition is a candidate only for the calls whose messages
// (any of them: system, user, assistant or tool) contain, or lack, the text;
// among the candidates of a call the n-th call still gets the n-th one
// (Request.Turn), so a condition picks a branch of replies.

// promptMatches reports whether req meets the reply's prompt conditions.
func (r *ScriptReply) promptMatches(req Request) bool {
	if r.WhenPromptContains != "" && !promptHas(req, r.WhenPromptContains) {
		return false
	}
	if r.WhenPromptLacks != "" && promptHas(req, r.WhenPromptLacks) {
		return false
	}
	return true
}

// conditional reports whether a reply for req's caller was left out by its
// prompt condition (for the message when no reply is left).
func (s *Script) conditional(req Request) bool {
	for i := range s.Replies {
		r := &s.Replies[i]
		if r.answers(req) && !r.promptMatches(req) {
			return true
		}
	}
	return false
}

// promptHas reports whether a message of req contains text.
func promptHas(req Request, text string) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.Text, text) {
			return true
		}
	}
	return false
}
