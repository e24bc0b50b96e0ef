// Package replyjson reads the JSON in a model's reply: the whole reply, a fenced
// block or an object inside prose, forgiving the slips models make often (a
// trailing comma, a raw control character inside a string) and refusing a
// reply that holds several values that differ rather than taking the first.
// llm.generate, the Skills Agent's plan and verdict parsers and the script
// runner's output checks read JSON through it; it knows nothing of schemas
// (callers pass a check where one is needed).
package replyjson
