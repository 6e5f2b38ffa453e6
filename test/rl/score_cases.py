"""Scores cases with the reward an export ships, as a framework would call it.

argv: the export's directory, a JSON Lines file of {completion, ground_truth}; prints one
JSON object: {results: [{score, outcome}] in the cases' order, per_second: compute_score's predictions per second}.
"""
import json
import sys
import time

sys.path.insert(0, sys.argv[1] + "/rewards")
import equisql_reward as reward  # noqa: E402

cases = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
started = time.perf_counter()
scores = [reward.compute_score("equisql", case["completion"], case["ground_truth"], None, timeout=1.0) for case in cases]
seconds = time.perf_counter() - started
# The outcomes apart, untimed: the benchmark measures compute_score alone.
out = [{"score": s, "outcome": reward.verdict(reward.extract_sql(c["completion"]), c["ground_truth"], timeout=1.0)["outcome"]} for s, c in zip(scores, cases)]
print(json.dumps({"results": out, "per_second": len(cases) / seconds}))
