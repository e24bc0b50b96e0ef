"""Checks a summary's length: the compute step of specs/examples/summarise.

Reads one JSON object on stdin: {"summary": str, "max_words": int}.
Prints one JSON object: {"fits": bool, "words": int, "feedback": str}.
"""
import json
import sys


def main() -> int:
    try:
        data = json.load(sys.stdin)
    except ValueError as e:
        print(f"check_summary: stdin is not JSON: {e}", file=sys.stderr)
        return 2
    summary = str(data.get("summary", ""))
    max_words = int(data.get("max_words", 40))
    words = len(summary.split())
    fits = 0 < words <= max_words
    if fits:
        feedback = ""
    elif words == 0:
        feedback = "The summary is empty."
    else:
        feedback = f"The summary has {words} words; write at most {max_words}."
    print(json.dumps({"fits": fits, "words": words, "feedback": feedback}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
