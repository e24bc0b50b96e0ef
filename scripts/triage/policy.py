"""Decides whether a classified ticket can be resolved without a person: the
compute step of specs/examples/triage/classify.yaml.

Reads one JSON object on stdin: {"category": str, "urgency": int, "max_auto_urgency": int}.
Prints one JSON object: {"auto_resolve": bool, "why": str}.
"""
import json
import sys

AUTO = {"billing", "account"}  # categories a drafted reply can settle


def main() -> int:
    try:
        data = json.load(sys.stdin)
    except ValueError as e:
        print(f"policy: stdin is not JSON: {e}", file=sys.stderr)
        return 2
    category = str(data.get("category", ""))
    urgency = int(data.get("urgency", 3))
    limit = int(data.get("max_auto_urgency", 2))
    if category not in AUTO:
        auto, why = False, f"{category} tickets need a person"
    elif urgency > limit:
        auto, why = False, f"urgency {urgency} is above {limit}"
    else:
        auto, why = True, f"a {category} ticket of urgency {urgency}"
    print(json.dumps({"auto_resolve": auto, "why": why}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
