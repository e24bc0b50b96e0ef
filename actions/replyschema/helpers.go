package replyschema

import (
	"maps"
	"slices"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// didYouMean renders mspec.DidYouMean as a hint, `did you mean "x"?`, or "".
func didYouMean(name string, candidates []string) string {
	return mspec.DidYouMeanHint(name, candidates)
}
