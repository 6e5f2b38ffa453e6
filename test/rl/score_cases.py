"""Scores cases with the reward an export ships, as a framework would call it.

argv: the export's directory, a JSON Lines file of {completion, ground_truth}; prints one
JSON list of {score, outcome} in the cases' order, then the predictions per second.
"""
import json
import sys
import time

sys.path.insert(0, sys.argv[1] + "/rewards")
import equisql_reward as reward  # noqa: E402

cases = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
started = time.perf_counter()
out = []
for case in cases:
    verdict = reward.verdict(reward.extract_sql(case["completion"]), case["ground_truth"], timeout=1.0)
    out.append({"score": reward.compute_score("equisql", case["completion"], case["ground_truth"], None, timeout=1.0), "outcome": verdict["outcome"]})
seconds = time.perf_counter() - started
print(json.dumps({"results": out, "per_second": len(cases) / seconds}))
