"""Train a tabular agent through the PettingZoo environment (:mod:`pokerbot.env`) against a baseline bot.

The learner is Monte Carlo control with a table: for each observation it has seen
(the observation vector is the key) it keeps the mean hand result of each action,
explores epsilon-greedily while training and plays greedily afterwards (ties broken
at random, so the untrained learner plays uniformly over the legal actions). The
opponent is one of the baseline bots (``make_agent("random" | "call" | "raise" ...)``)
acting through the same environment: ``env.encode_action(bot.act(env.view(agent)))``.

Both evaluations play the same deals (dealer seed ``--seed + 1``) against a fresh copy
of the bot seeded alike, so the difference between them is the learning, not the cards.

    python docs/examples/pettingzoo_train.py                      # Kuhn against the random bot
    python docs/examples/pettingzoo_train.py --game leduc --train-hands 20000
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np

from pokerbot.bots import make_agent
from pokerbot.env import PokerEnv

LEARNER = "player_0"
BOT = "player_1"


class TabularLearner:
    """Mean return per (observation, action); epsilon-greedy while learning, greedy otherwise."""

    def __init__(self, n_actions: int, epsilon: float, seed: int) -> None:
        self.n_actions = n_actions
        self.epsilon = epsilon
        self.rng = np.random.default_rng(seed)
        self.value: defaultdict[bytes, np.ndarray] = defaultdict(lambda: np.zeros(n_actions))
        self.count: defaultdict[bytes, np.ndarray] = defaultdict(lambda: np.zeros(n_actions))

    def act(self, observation: dict[str, np.ndarray], explore: bool) -> tuple[bytes, int]:
        key = observation["observation"].tobytes()
        legal = np.flatnonzero(observation["action_mask"])
        if explore and self.rng.random() < self.epsilon:
            return key, int(self.rng.choice(legal))
        values = self.value[key][legal]
        best = legal[values == values.max()]
        return key, int(self.rng.choice(best))

    def update(self, visits: list[tuple[bytes, int]], result: float) -> None:
        for key, action in visits:
            self.count[key][action] += 1
            self.value[key][action] += (result - self.value[key][action]) / self.count[key][action]


def play(env: PokerEnv, learner: TabularLearner, opponent: str, hands: int, seed: int, bot_seed: int,
         learn: bool) -> np.ndarray:
    """The learner's result (big blinds) in each of ``hands`` hands dealt from dealer seed ``seed``."""
    bot = make_agent(opponent, env.game, seed=bot_seed)
    bot.begin_match(env.game)
    results = np.zeros(hands)
    for hand in range(hands):
        env.reset(seed=seed) if hand == 0 else env.reset()
        bot.begin_hand(env.view(BOT))
        visits: list[tuple[bytes, int]] = []
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                if agent == LEARNER:
                    results[hand] = reward
                else:
                    bot.end_hand(env.view(BOT))
                env.step(None)
            elif agent == LEARNER:
                key, action = learner.act(observation, explore=learn)
                visits.append((key, action))
                env.step(action)
            else:
                env.step(env.encode_action(bot.act(env.view(agent))))
        if learn:
            learner.update(visits, results[hand])
    return results


def mbb(results: np.ndarray) -> tuple[float, float]:
    """mbb/g (1000 x big blinds per hand) and the half-width of its 95% confidence interval."""
    return 1000 * float(results.mean()), 1000 * 1.96 * float(results.std(ddof=1)) / np.sqrt(results.size)


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="kuhn", help="a game the environment plays (kuhn, leduc, ...)")
    parser.add_argument("--opponent", default="random", help="baseline bot spec (random, call, raise, ...)")
    parser.add_argument("--train-hands", type=int, default=3000)
    parser.add_argument("--eval-hands", type=int, default=3000)
    parser.add_argument("--epsilon", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    env = PokerEnv(args.game)
    learner = TabularLearner(len(env.action_labels), args.epsilon, args.seed)
    eval_seed, bot_seed = args.seed + 1, args.seed + 2
    before = mbb(play(env, learner, args.opponent, args.eval_hands, eval_seed, bot_seed, learn=False))
    play(env, learner, args.opponent, args.train_hands, args.seed, bot_seed + 1, learn=True)
    after = mbb(play(env, learner, args.opponent, args.eval_hands, eval_seed, bot_seed, learn=False))
    print(f"{args.game} against {args.opponent}: {args.train_hands} training hands, "
          f"{args.eval_hands} evaluation hands, {len(learner.value)} observations learnt, "
          f"{time.perf_counter() - start:.1f} s")
    print(f"before training: {before[0]:+.0f} +- {before[1]:.0f} mbb/g")
    print(f"after training:  {after[0]:+.0f} +- {after[1]:.0f} mbb/g")
    print(f"improvement:     {after[0] - before[0]:+.0f} mbb/g")
    return {"before": before[0], "after": after[0]}


if __name__ == "__main__":
    main()
