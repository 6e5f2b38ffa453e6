"""Calls the reward as verl does: the file imported by custom_reward_function.path and .name
(importlib from a file path, as verl's get_custom_reward_fn), the rows read from the Parquet
with the columns verl's RLHFDataset and reward manager use (prompt, data_source,
reward_model.ground_truth, extra_info). argv: the export's directory, a split. Prints the
scores of the gold answers and of an empty answer, and the prompt's roles.
"""
import importlib.util
import json
import sys

import pyarrow.parquet as pq

root, split = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("custom_module", f"{root}/rewards/equisql_reward.py")
module = importlib.util.module_from_spec(spec)
sys.modules["custom_module"] = module
spec.loader.exec_module(module)
compute_score = getattr(module, "compute_score")

rows = pq.read_table(f"{root}/rl/verl/{split}.parquet").to_pylist()
gold = {json.loads(l)["id"]: json.loads(l)["sql"] for l in open(f"{root}/data/{split}-00000-of-00001.jsonl")}
scores, empty = [], []
for row in rows:
    sql = gold[row["extra_info"]["id"]]
    scores.append(compute_score(data_source=row["data_source"], solution_str=f"<think>the schema…</think>\n```sql\n{sql}\n```", ground_truth=row["reward_model"]["ground_truth"], extra_info=row["extra_info"]))
    empty.append(compute_score(row["data_source"], "I do not know.", row["reward_model"]["ground_truth"], row["extra_info"]))
batch = compute_score([r["data_source"] for r in rows], [f"```sql\n{gold[r['extra_info']['id']]}\n```" for r in rows], [r["reward_model"]["ground_truth"] for r in rows], [r["extra_info"] for r in rows])
print(json.dumps({"rows": len(rows), "gold": scores, "empty": empty, "batch": batch, "roles": [m["role"] for m in rows[0]["prompt"]], "ability": rows[0]["ability"], "style": rows[0]["reward_model"]["style"]}))
