"""verl's tool interface over equisql's SqlEnvironment (multi-turn rollouts with SGLang/vLLM).

Point `actor_rollout_ref.rollout.multi_turn.tool_config_path` at equisql_tool_config.yaml
(beside this file); each rollout gets its own environment, created from the row's
`tools_kwargs` ({"execute_sql": {"create_kwargs": {"ground_truth": …}}}), or from its
reward_model ground truth. Needs verl; the reward file itself does not.
"""

import os
import sys
from uuid import uuid4

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from equisql_reward import SqlEnvironment  # noqa: E402

try:
    from verl.tools.base_tool import BaseTool
except ImportError:  # verl absent: the class still loads, for reading and tests
    BaseTool = object


class EquisqlSqlTool(BaseTool):
    """`execute_sql`: runs one read-only SELECT on the row's database, returns truncated text."""

    def __init__(self, config=None, tool_schema=None):
        if BaseTool is not object:
            super().__init__(config or {}, tool_schema)
        self.environments = {}

    async def create(self, instance_id=None, ground_truth=None, **kwargs):
        instance_id = instance_id or str(uuid4())
        env = SqlEnvironment()
        env.reset(ground_truth=ground_truth)
        self.environments[instance_id] = env
        return instance_id

    async def execute(self, instance_id, parameters, **kwargs):
        env = self.environments[instance_id]
        text = env.execute_sql(str(parameters.get("sql", "")))
        return text, 0.0, {"calls": env.calls}

    async def calc_reward(self, instance_id, **kwargs):
        return 0.0

    async def release(self, instance_id, **kwargs):
        self.environments.pop(instance_id, None)
