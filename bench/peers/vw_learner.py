"""Vowpal Wabbit's contextual bandit as a decide/learn pair, shared by
decide_peers.py (time per step) and sim_peers.py (the paper's environment).

VW has no LinUCB. Its --cb_explore_adf learns one linear regressor of the
cost over (context x action) features; the explorations compared are:

  vw-egreedy   VW's default exploration: epsilon-greedy, epsilon = 0.05.
  vw-regcbopt  RegCB-Opt (Foster et al., ICML 2018): plays the action whose
               LOWER confidence bound on the cost is smallest, the bounds
               coming from how far the online regressor can move (VW's
               --mellowness, default 0.1). Optimism under uncertainty, as in
               LinUCB; the closest of VW 9's explorations. The others are
               randomised (--squarecb, --softmax), ensembles (--bag, --cover)
               or elimination (--regcb), none of them a UCB.

-q sa crosses the context (namespace s) with the action (namespace a), so
the regressor holds one weight vector per arm, as disjoint LinUCB does;
without it every arm shares the context's weights and only the arm's bias
tells them apart. The cost is 1 - reward, inside RegCB's default cost range
[0, 1]. Actions are sampled from VW's pmf by a seeded numpy generator (VW's
Python API returns the pmf and leaves the draw to the caller).
"""
import numpy as np

EXPLORATIONS = {"vw-egreedy": "", "vw-regcbopt": "--regcbopt"}
# Not in the tables by default; sim_peers.py --explorations can add them.
OTHER_EXPLORATIONS = {"vw-squarecb": "--squarecb", "vw-regcb": "--regcb"}


def shared_line(x):
    """The context as VW's shared features (namespace s)."""
    return "shared |s " + " ".join(f"f{i}:{v:.6g}" for i, v in enumerate(x))


class VwLearner:
    """One VW workspace: decide() returns (action, probability), learn()
    takes the reward of that action."""

    def __init__(self, exploration, k, seed=7):
        from vowpalwabbit import Workspace
        flags = {**EXPLORATIONS, **OTHER_EXPLORATIONS}[exploration]
        self.ws = Workspace(f"--cb_explore_adf -q sa --quiet --random_seed {seed} {flags}")
        self.actions = [f"|a a{j}" for j in range(k)]
        self.rng = np.random.default_rng(seed)

    def decide(self, shared):
        pmf = np.asarray(self.ws.predict([shared] + self.actions), dtype=np.float64)
        # RegCB's pmf puts 1 on every action tied for the best bound: a
        # uniform draw among them, logged at its normalised probability.
        pmf /= pmf.sum()
        a = int(self.rng.choice(len(pmf), p=pmf))
        return a, float(pmf[a])

    def learn(self, shared, action, probability, reward):
        lines = [shared] + self.actions
        lines[action + 1] = f"0:{1.0 - reward}:{probability} {lines[action + 1]}"
        self.ws.learn(lines)

    def finish(self):
        self.ws.finish()
