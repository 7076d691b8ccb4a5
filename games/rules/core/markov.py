"""Exact absorption probabilities of a finite absorbing Markov chain, in fractions.

A chain is given by its start state and a function from a transient state to its
moves: ``(probability, Absorbed(label))`` ends the chain with that label, ``(probability,
state)`` moves on. `absorption` returns the probability of ending at each label.

The reachable states are split into strongly connected components and solved one
component at a time, sinks first, so a chain of thousands of states whose cycles are
small (a craps point that comes and goes while progress only grows) solves quickly:
each component is a small linear system solved by Gaussian elimination.
"""

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

Label = TypeVar("Label", bound=Hashable)


@dataclass(frozen=True)
class Absorbed(Generic[Label]):
    """The chain ends with `label` (a wager's outcome)."""

    label: Label


Move = tuple[Fraction, object]


def absorption(
    start: Hashable, moves: Callable[[Hashable], Iterable[Move]]
) -> dict[Hashable, Fraction]:
    """Probability of ending at each label, starting from `start`. Exact."""
    graph = _explore(start, moves)
    labels: dict[Hashable, int] = {}
    for edges in graph.values():
        for target, _ in edges:
            if isinstance(target, Absorbed) and target.label not in labels:
                labels[target.label] = len(labels)
    width = len(labels)
    solved: dict[Hashable, list[Fraction]] = {}
    for component in _components(graph):
        _solve(component, graph, labels, width, solved)
    return {label: solved[start][i] for label, i in labels.items() if solved[start][i]}


def _explore(start: Hashable, moves: Callable[[Hashable], Iterable[Move]]) -> dict:
    """Every transient state reachable from `start`, with its moves merged by target."""
    graph: dict[Hashable, list[tuple[object, Fraction]]] = {}
    pending = [start]
    while pending:
        state = pending.pop()
        if state in graph:
            continue
        merged: dict[object, Fraction] = {}
        for probability, target in moves(state):
            merged[target] = merged.get(target, Fraction(0)) + probability
        graph[state] = list(merged.items())
        pending += [t for t in merged if not isinstance(t, Absorbed) and t not in graph]
    return graph


def _components(graph: dict) -> list[list[Hashable]]:
    """Strongly connected components, each after every component it can reach (Tarjan)."""
    index: dict[Hashable, int] = {}
    low: dict[Hashable, int] = {}
    on_stack: set[Hashable] = set()
    stack: list[Hashable] = []
    found: list[list[Hashable]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            state, edges = work[-1]
            advanced = False
            for target, _ in edges:
                if isinstance(target, Absorbed):
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(graph[target])))
                    advanced = True
                    break
                if target in on_stack:
                    low[state] = min(low[state], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[state])
            if low[state] == index[state]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == state:
                        break
                found.append(component)
    return found


def _solve(
    component: list[Hashable],
    graph: dict,
    labels: dict[Hashable, int],
    width: int,
    solved: dict[Hashable, list[Fraction]],
) -> None:
    """v(x) = sum p(x,y) v(y) + sum p(x,a) e_a, for the x of one component."""
    position = {state: i for i, state in enumerate(component)}
    size = len(component)
    # Rows: [coefficients of the component's states | right-hand side per label].
    rows: list[list[Fraction]] = []
    for state in component:
        row = [Fraction(0)] * (size + width)
        row[position[state]] += 1
        for target, probability in graph[state]:
            if isinstance(target, Absorbed):
                row[size + labels[target.label]] += probability
            elif target in position:
                row[position[target]] -= probability
            else:
                for i, value in enumerate(solved[target]):
                    if value:
                        row[size + i] += probability * value
        rows.append(row)
    for col in range(size):
        pivot = next(r for r in range(col, size) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        if lead != 1:
            rows[col] = [value / lead for value in rows[col]]
        for r in range(size):
            factor = rows[r][col]
            if r != col and factor != 0:
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    for state in component:
        solved[state] = rows[position[state]][size:]
