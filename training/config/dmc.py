"""``DMCConfig``: the Deep Monte-Carlo trainer's config (``training.dmc``).

The fields both trainers have, and their checks, are ``TrainerConfig``'s; this class adds what
only Deep Monte-Carlo has (rule mixes, per-card features, exploration, targets, rollout and
search labels, the replay buffer, actors and checkpoint selection) and checks those, with the
network's input that its rule mixes and features decide and what its batched engine cannot play.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from training.config.checks import (
    ConfigError,
    check_specs,
    flag,
    fraction,
    network_plan,
    nonneg_int,
    one_of,
    positive_float,
    positive_int,
    quoted,
)
from training.config.choices import OBS_DTYPES, PRECISIONS
from training.config.trainer import TrainerConfig


@dataclass
class DMCConfig(TrainerConfig):
    """Deep Monte-Carlo self-play (``training.dmc``): all seats share one Q network.

    The defaults are the ``quick`` preset: about four minutes on two cores, the run the README's
    first command trains. Fields are grouped by what they decide; a group's fields only make
    sense together, and the first field of each group says how. The fields both trainers have
    are ``TrainerConfig``'s, whose defaults are this trainer's.
    """

    trainer: ClassVar[str] = "dmc"
    """Deep Monte-Carlo (``training.dmc``)."""

    # ------------------------------------------------------------------ rule sets
    rules_mix: tuple[str | dict[str, Any], ...] = ()
    """Several rule sets for one network: each table's rules are drawn uniformly from these
    (preset names or option dicts), and the network reads the table's observation padded to
    the longest of them followed by the rule features (``agents.rule_features``), so one
    policy plays them all. ``rules`` must be one of them (the periodic evaluations use it).
    Empty: the one rule set ``rules``. All entries one deck or all two, all with teams or
    none; single hands only, no ``init_policy`` and no checkpoint selection."""

    # ------------------------------------------------------------------ network
    card_features: bool = True
    """Feed the network the per-card trick features of ``agents.card_features`` (which card
    wins the trick now, which is the highest still out, ...) next to the observation. They are
    computed from the observation, so the policy still reads only the env's vector. They cost
    about a third of the decisions/s and learn more per minute (docs/training.md)."""

    holder_features: bool = False
    """Also feed it, for each other seat and card, whether that seat may still hold the card
    and whether it is the only one that may (``agents.holder_features``: from shown voids and
    exposed cards). Computed from the observation like ``card_features``; off until it is
    measured to help (docs/training.md)."""

    init_policy: str = ""
    """Policy file (``policy:`` spec path, or ``"pretrained"``) whose weights start the
    network instead of a random initialisation: fine-tuning a trained policy, e.g. with
    rollout labels. Its architecture must match ``hidden``, ``card_features`` and
    ``holder_features``, and its rules ``rules``. Empty: start from scratch."""

    # ------------------------------------------------------------------ acting
    num_tables: int = 128
    """Games stepped in lockstep; one batched forward pass scores all their seats to move."""

    obs_dtype: str = "uint8"
    """How the batched engine writes the observations the actors read and the replay keeps:
    ``"uint8"``, each value ``x`` as the byte ``rint(x * 255)`` (``GameBatch(obs_dtype=
    numpy.uint8)``), or ``"float32"``, the encoded values, which the actors then round to the
    same bytes. The network reads ``byte / 255`` either way, in the actors' forward passes and
    on the learner's device, so a seed gives the same run with both; uint8 writes and moves a
    quarter of the bytes (docs/train.md has the memory and the speed). Unused by the scalar
    engine, whose actors encode float32 views and keep their bytes."""

    epsilon_start: float = 0.05
    """Exploration rate of the learner seats at the start (uniform legal action). With
    ``epsilon_end`` and ``epsilon_decay_decisions`` it makes one linear schedule. The quick
    measurements moved from 0.2 -> 0.02 to 0.05 -> 0.01 together with the smaller network and
    the higher learning rate, and learnt faster (docs/training.md, q1 -> q2)."""

    epsilon_end: float = 0.01
    """Exploration rate after ``epsilon_decay_decisions``."""

    epsilon_decay_decisions: int = 1_000_000
    """Learner decisions over which epsilon decays linearly (about a third of a quick run)."""

    # ------------------------------------------------------------------ targets
    reward_clip: float = 4.0
    """Scaled returns are clipped to [-clip, clip] (slams would otherwise dominate the loss)."""

    td_lambda: float = 0.8
    """Lambda of the targets over a seat's own decisions: 1 = pure Monte-Carlo (the hand
    result, DouZero's target); below 1 mixes in the network's own value of the seat's next
    decision. 0.8 learnt clearly faster than 1.0 in the quick preset (docs/training.md)."""

    # ------------------------------------------------------------------ rollout labels
    rollout_share: float = 0.0
    """Share of the learner's decisions labelled by *rollouts* instead of by the hand's
    result: every distinct legal card is tried on a copy of the real table and the hand is
    finished by ``rollout_policy`` at all four seats; each card gets its own outcome as target.
    This teaches Q(s, a) of every card at once, with far less noise than one Monte-Carlo return
    (the rest of the hand is played by a fixed, decent policy), and the greedy policy on it is
    a one-step improvement over ``rollout_policy`` (what ``pimc`` does by search, learnt).
    0 is pure self-play Deep Monte-Carlo, and then the other three fields of this group are
    unused. See ``rollout_share_final`` for a schedule."""

    rollout_share_final: float | None = None
    """``rollout_share`` moves linearly to this value over the time budget (None: constant), so
    a run can start from the rule player's one-step improvement and hand over to self-play."""

    rollout_policy: str = "expert"
    """Policy that finishes the hands of the rollouts (``agents.pimc.ROLLOUTS``)."""

    rollout_level_weight: float = 0.25
    """Weight of the common level of a rollout-labelled decision's targets in the loss, next
    to their differences (``training.dmc.q_loss``). The outcomes of one decision share the
    deal, so their level is noisy and their differences are not; below 1 the network spends
    its capacity on telling the cards apart."""

    search_labels: str = ""
    """Directory of a label set of ``training.expert_iteration.labels`` (the search agent's value of
    every legal card at its decisions), or several joined with ``os.pathsep`` (``:`` on
    Linux and macOS), whose labels are pooled: expert iteration. A share ``search_label_share`` of
    every minibatch is drawn from these labels, the rest from self-play, and the labels' rows
    count in the loss like rollout labels (``rollout_level_weight``). Empty: none."""

    search_label_share: float = 0.0
    """Share of each minibatch drawn from ``search_labels`` (in ``(0, 1]`` when it is set)."""

    # ------------------------------------------------------------------ learning
    lr_final_fraction: float = 1.0
    """The learning rate decays linearly to ``lr * lr_final_fraction`` over the time budget
    (1: constant). Late, smaller steps average out the noise of Monte-Carlo targets; worth it
    in a long run (the full preset's 0.1), not in four minutes."""

    replay_size: int = 131_072
    """Most recent samples kept; minibatches are drawn uniformly from them. Must hold at
    least ``batch_size`` and ``min_replay``."""

    sample_reuse: float = 1.0
    """Average number of gradient steps each sample takes part in (sets the update rate)."""

    min_replay: int = 4096
    """Samples collected before the first gradient step (four batches)."""

    precision: str = "float32"
    """Number format of the matrix products in the learner's gradient steps: ``"float32"``,
    ``"bfloat16"`` (autocast: weights, optimiser state and loss stay float32) or ``"auto"``
    (bfloat16 where the learner's device computes it natively, else float32: the CPU's
    bfloat16 dot products, or a GPU's with ``device`` on CUDA; ``training.dmc.precision``).
    The actors' forward passes stay float32 (their batches of a few hundred rows gain little
    or lose), and saved policies are float32 either way."""

    max_grad_norm: float = 10.0
    """Gradient-norm clip; guards against the rare huge returns (slams)."""

    # ------------------------------------------------------------------ opponents
    snapshot_interval_s: float = 45.0
    """Wall-clock seconds between frozen snapshots added to the opponent pool (used only when
    ``opponent_mix`` names ``"snapshot"``; before the first one those seats are the learner).
    About four snapshots in a quick run."""

    # ------------------------------------------------------------------ budget and schedule
    total_decisions: int = 0
    """Stop after this many learner decisions (0: only the time budget stops the run)."""

    checkpoint_interval_s: float = 60.0
    """Wall-clock seconds between checkpoints (``checkpoints/latest.pt`` for resume and a
    periodic ``policy_<decisions>.pt``): an interruption loses at most this much training."""

    log_interval_s: float = 10.0
    """Seconds between rows of ``metrics.csv`` / TensorBoard scalars."""

    # ------------------------------------------------------------------ evaluation
    eval_interval_s: float = 70.0
    """Wall-clock seconds between quick arena evaluations for the learning curve (two in a
    quick run between the first and the last). Each costs ``eval_deals`` deals per opponent
    in ``eval_opponents``, outside the training budget."""

    # ------------------------------------------------------------------ checkpoint selection
    select_last: int = 0
    """At the end, play the last this-many periodic policies against ``select_opponent`` on
    held-out deals and keep the best as ``policy.pt`` (``training.select``); late
    checkpoints differ by more than the policy improves between them. 0: keep the final
    weights, and the other ``select_*`` fields are unused."""

    select_deals: int = 1000
    """Duplicate deals each candidate plays in the selection."""

    select_opponent: str = "expert"
    """Agent spec the candidates are selected against."""

    select_average: bool = True
    """Add the mean of the candidates' weights as one more candidate (weight averaging)."""

    # ------------------------------------------------------------------ processes
    num_actors: int = 1
    """Actor processes playing the tables (0: play in the learner's process, deterministic).
    With ``sync_interval_s`` and ``actor_chunk`` it sets how actors and learner talk; one actor
    and the learner fill two cores. ``gongzhu train --actors auto`` sets one per core of the
    machine it runs on (a GPU learner needs little of the CPU)."""

    sync_interval_s: float = 1.0
    """Seconds between weight updates sent from the learner to the actors."""

    actor_chunk: int = 1024
    """Samples an actor gathers before sending them to the learner."""

    # ------------------------------------------------------------------ checks
    def check_own(self) -> None:
        """Check Deep Monte-Carlo's own fields (sizes, schedules, labels, rule mixes)."""
        for name in ("num_tables", "replay_size", "actor_chunk", "select_deals"):
            positive_int(self, name)
        for name in ("min_replay", "epsilon_decay_decisions", "total_decisions", "num_actors",
                     "select_last"):
            nonneg_int(self, name)
        check_specs((self.select_opponent,), "select_opponent")
        for name in ("sample_reuse", "max_grad_norm", "reward_clip", "snapshot_interval_s",
                     "checkpoint_interval_s", "eval_interval_s", "log_interval_s",
                     "sync_interval_s", "rollout_level_weight"):
            positive_float(self, name)
        for name in ("epsilon_start", "epsilon_end", "td_lambda", "lr_final_fraction",
                     "rollout_share"):
            fraction(self, name, noun="a probability")
        if self.rollout_share_final is not None:
            fraction(self, "rollout_share_final", noun="a probability")
        for name in ("card_features", "holder_features", "select_average"):
            flag(self, name)
        self.check_search_labels()
        if not isinstance(self.rules_mix, (list, tuple)):
            raise ConfigError(f"rules_mix: must be a list of rule sets; got "
                              f"{quoted(self.rules_mix)}")
        if self.rules_mix:
            self.check_rules_mix()
        if self.episode == "match" and (self.rollout_share or self.rollout_share_final):
            raise ConfigError("rollout_share: rollout labels value a card by finishing the "
                              "hand, not the match; with episode='match' set rollout_share and "
                              "rollout_share_final to 0")
        from agents.pimc import ROLLOUTS

        one_of(self, "rollout_policy", sorted(ROLLOUTS))
        if self.batch_size > self.replay_size:
            raise ConfigError(f"batch_size: {self.batch_size} exceeds replay_size "
                              f"{self.replay_size}")
        if self.min_replay > self.replay_size:
            raise ConfigError(f"min_replay: {self.min_replay} exceeds replay_size "
                              f"{self.replay_size}")
        one_of(self, "precision", PRECISIONS)
        one_of(self, "obs_dtype", OBS_DTYPES)

    def check_network(self) -> dict[str, Any]:
        """Check the network on the input this config's tables give; check a starting policy.

        The input is the rules' observation, or a rules mix's padded one, plus the per-card
        and holder features.
        """
        from gongzhu_env.rules import Rules
        from gongzhu_env.view import obs_size

        rules = self.game_rules
        if self.rules_mix:
            from agents.rule_features import MixedInput

            width = MixedInput([Rules.coerce(r) for r in self.rules_mix]).width
        else:
            width = obs_size(rules, self.episode == "match")
        arch = network_plan(self.hidden, width, rules.num_actions,
                            card_features=self.card_features,
                            holder_features=self.holder_features)
        self.check_init_policy(arch)
        return arch

    def check_init_policy(self, arch: Mapping[str, Any]) -> None:
        """Refuse a starting policy that is not a ``q`` policy of the run's rules and network.

        The file is loaded here (``agents.policy.load_policy_file`` checks it whole, and caches
        it for the trainer), so a file that is not a policy, such as a system file, or one of
        another shape is refused before a run directory is made.
        """
        if not isinstance(self.init_policy, str):
            raise ConfigError(f"init_policy: must be a policy file path or 'pretrained'; got "
                              f"{quoted(self.init_policy)}")
        if not self.init_policy:
            return
        from agents.policy import PolicyLoadError, load_policy_file

        try:
            net, data = load_policy_file(self.init_policy, self.game_rules)
        except PolicyLoadError as e:
            raise ConfigError(f"init_policy: {e}") from None
        if data.get("kind", "q") != "q" or net.architecture() != dict(arch):
            raise ConfigError(f"init_policy: {self.init_policy!r} holds a "
                              f"{data.get('kind')!r} network {net.architecture()}; this run "
                              f"needs a 'q' network {dict(arch)} (set hidden, card_features "
                              "and holder_features to the file's)")

    def check_search_labels(self) -> None:
        """Labels need a share of the batch, and a share needs labels (one hand, one rule set)."""
        if not isinstance(self.search_labels, str):
            raise ConfigError(f"search_labels: must be a label directory or empty; got "
                              f"{quoted(self.search_labels)}")
        fraction(self, "search_label_share", noun="a share")
        share = self.search_label_share
        if bool(self.search_labels) != (share > 0):
            raise ConfigError("search_labels and search_label_share go together: a label "
                              "directory needs a share in (0, 1] and a share needs a "
                              f"directory; got search_labels={self.search_labels!r}, "
                              f"search_label_share={share!r}")
        if self.search_labels and (self.episode != "hand" or self.rules_mix):
            raise ConfigError("search_labels: labels are of single hands of one rule set; they "
                              "cannot be combined with match episodes or a rules_mix")
        if self.search_labels:
            # Each set's manifest now (its chunks are checked when the trainer loads them), so
            # a mistyped directory is refused before a run directory is made.
            from training.label_sets import LabelError, check_label_set, label_dirs

            dirs = label_dirs(self.search_labels)
            try:
                if not dirs:
                    raise LabelError(f"no label directory in {self.search_labels!r}")
                for d in dirs:
                    check_label_set(d, self.game_rules)
            except LabelError as e:
                raise ConfigError(f"search_labels: {e}") from None

    def check_rules_mix(self) -> None:
        """Check a rules mix: valid rule sets of one kind, with ``rules`` among them.

        Options that need a single rule set (match episodes, a starting policy, selection) are
        refused next to it.
        """
        from agents.rule_features import MixedInput
        from gongzhu_env.rules import Rules

        try:
            mix = [Rules.coerce(r) for r in self.rules_mix]
            MixedInput(mix)
        except (ValueError, TypeError) as e:
            raise ConfigError(f"rules_mix: {e}") from None
        if len(set(mix)) != len(mix):
            raise ConfigError(f"rules_mix: a rule set is named twice in {list(self.rules_mix)}")
        sizes = sorted({r.players for r in mix})
        if len(sizes) > 1:
            raise ConfigError(f"rules_mix: every rule set must be for one table size (a "
                              f"network's input has one layout per size); got players {sizes}")
        if self.game_rules not in mix:
            raise ConfigError(f"rules_mix: rules {self.rules!r} must be one of the mix (the "
                              "periodic evaluations play at its tables)")
        for name, bad in (("episode", self.episode != "hand"), ("init_policy", self.init_policy),
                          ("select_last", self.select_last > 0)):
            if bad:
                raise ConfigError(f"rules_mix: cannot be combined with "
                                  f"{name}={getattr(self, name)!r}")

    def batch_engine_obstacle(self) -> str | None:
        """Say why the batched engine cannot play this run, or return ``None`` if it can.

        Besides the rules and single hands (``TrainerConfig``), the batched tables play one
        rule set, and rollout labels need a reference ``Game`` per table to copy.
        """
        why = super().batch_engine_obstacle()
        if why is not None:
            return why
        if self.rules_mix:
            return "it plays one rule set, not a rules_mix"
        if self.rollout_share or self.rollout_share_final:
            return ("rollout labels need a reference Game per table (rollout_share="
                    f"{self.rollout_share!r}, rollout_share_final={self.rollout_share_final!r})")
        return None
