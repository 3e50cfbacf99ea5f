"""A broken implementation for the conformance kit's own test: it says yes to everything."""
import json
import sys

if sys.argv[1] == "serve":
    for line in sys.stdin:
        print(json.dumps({"ok": True, "result": 1, "sender": "", "body": ""}), flush=True)
else:
    sys.exit(0)
