"""What the lint may spend: per question, per unit of work, and for the whole run.

Work is counted, not timed, so a lint gives the same report on a loaded machine: the solver
counts its own steps (Z3's `rlimit`), the automata count the joint states their searches
visit, the solver's encodings count the Z3 terms they make (over k positions a formula's
encoding grows with k, often faster), and one joint state counts as `STATE_STEPS` solver
steps, one term as `ENCODE_STEPS` (about the same CPU time).

- A *question* (`policyc.lint.questions`) may take `LintOptions.rlimit` solver steps and
  `LintOptions.states` joint states; a question that runs out is not decided (L0009), and
  says what was tried.
- The *run* may take `LintOptions.budget` steps in all. A unit of work may spend what was
  left when its phase started; in the order of its items, once the units of a phase have
  spent that, the phase's later units are not run, and what each asks is reported as not
  decided (`policyc.lint.run`). The order, not the process that runs a unit, decides, so
  the report is the same with any number of processes.

>>> budget = Budget(1_000)
>>> budget.charge_states(3); budget.charge_steps(100); budget.left
300
>>> budget.spent, budget.exhausted
(700, False)
"""

from __future__ import annotations

from dataclasses import dataclass

#: Solver steps one joint state of an automata search counts for.
STATE_STEPS = 200
#: Solver steps one Z3 term made by an encoding counts for.
ENCODE_STEPS = 20

#: The defaults of `LintOptions`: per question, solver steps and joint states; for the run, steps.
QUESTION_STEPS = 10_000_000
QUESTION_STATES = 60_000
RUN_BUDGET = 200_000_000


@dataclass
class Budget:
    """An allowance of work in solver steps, and what was spent of it."""

    allowance: int
    steps: int = 0  # solver steps spent
    states: int = 0  # joint states visited

    @property
    def spent(self) -> int:
        return self.steps + self.states * STATE_STEPS

    @property
    def left(self) -> int:
        return max(0, self.allowance - self.spent)

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.allowance

    def charge_steps(self, steps: int) -> None:
        self.steps += max(0, steps)

    def charge_states(self, states: int) -> None:
        self.states += max(0, states)


def steps_text(steps: int) -> str:
    """A count of solver steps as people read it.

    >>> steps_text(4_000_000), steps_text(300_000_000), steps_text(12_345)
    ('4M', '300M', '12,345')
    """
    if steps >= 1_000_000 and steps % 1_000_000 == 0:
        return f"{steps // 1_000_000}M"
    return f"{steps:,}"
