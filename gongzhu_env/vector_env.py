"""The batched vector envs' older address: ``gongzhu_env.vector_env``.

``SingleSeatVectorEnv`` and ``SelfPlayBatch`` live in ``gongzhu_env.batch.vector_env``; this
module re-exports them so that code written against ``gongzhu_env.vector_env`` keeps working.
"""

from __future__ import annotations

from gongzhu_env.batch.vector_env import (
    RANDOM,
    SelfPlayBatch,
    SelfPlayRollout,
    SingleSeatVectorEnv,
    check_policy,
    policy_label,
)

__all__ = ["SingleSeatVectorEnv", "SelfPlayBatch", "SelfPlayRollout", "RANDOM",
           "check_policy", "policy_label"]
