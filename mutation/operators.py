"""Which mutants a session makes: cosmic-ray's operators that model a small defect in this
code (a condition negated, a comparison moved by one, a constant changed, a flag flipped, a
loop skipped, an exception type swapped), and one of ours it lacks: a call statement deleted
(a `proc.kill()` or `os.close(fd)` that never happens).

Left out: replacing an arithmetic or bitwise operator by every other one (two per operator
are kept: the likely slip and its mirror), comparisons across families (`==` to `<`), and the
variable replacers (random values); they multiply mutants without modelling a defect someone
would write."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import parso
from cosmic_ray.operators.operator import Example, Operator
from cosmic_ray.plugins import OPERATOR_PROVIDERS

PROVIDER = "agent-tck"

KEPT = re.compile(
    r"core/(AddNot|ReplaceUnaryOperator_Delete_Not|NumberReplacer|ReplaceTrueWithFalse"
    r"|ReplaceFalseWithTrue|ReplaceAndWithOr|ReplaceOrWithAnd|ReplaceBreakWithContinue"
    r"|ReplaceContinueWithBreak|ExceptionReplacer|ZeroIterationForLoop|RemoveDecorator"
    r"|ReplaceComparisonOperator_(Eq_NotEq|NotEq_Eq|Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Is_IsNot"
    r"|IsNot_Is|In_NotIn|NotIn_In)"
    r"|ReplaceBinaryOperator_(Add_Sub|Sub_Add|Mul_Div|Div_Mul|FloorDiv_Mul|Mod_FloorDiv"
    r"|BitOr_BitAnd|BitAnd_BitOr))$"
    rf"|{PROVIDER}/.*"
)


class DeleteCall(Operator):  # type: ignore[misc]  # cosmic-ray is untyped
    """A statement that is only a call (`proc.kill()`, `self._lock.release()`) becomes
    `pass`: the defect of a step forgotten."""

    def mutation_positions(self, node: Any) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
        if node.type == "simple_stmt" and _is_call(node.children[0]):
            call = node.children[0]
            yield (call.start_pos, call.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0 and node.type == "simple_stmt"
        prefix = node.children[0].get_first_leaf().prefix
        node.children[0] = parso.parse(prefix + "pass")  # type: ignore[no-untyped-call]
        return node

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (Example("f(x)\n", "pass\n"), Example("a.b.c()\n", "pass\n"),
                Example("x = f()\n", "x = f()\n"))


def _is_call(node: Any) -> bool:
    if node.type not in ("atom_expr", "power"):
        return False
    last = node.children[-1]
    return bool(last.type == "trailer" and last.children[0].value == "(")


def register() -> None:
    """Make cosmic-ray know our operator and forget the ones left out (in this process, where
    sessions are made and mutants applied)."""
    core = OPERATOR_PROVIDERS["core"]
    OPERATOR_PROVIDERS["core"] = {name: core[name] for name in core if kept(f"core/{name}")}
    OPERATOR_PROVIDERS[PROVIDER] = {"DeleteCall": DeleteCall}


def kept(name: str) -> bool:
    return KEPT.match(name) is not None
