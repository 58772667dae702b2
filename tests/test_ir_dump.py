"""``cardlang describe --ir``: the compiled program as the native engine receives it."""

from __future__ import annotations

import re

from conftest import GAMES
from helpers import run_cli

from cardlang import load_game
from cardlang.compiler.ir import OPS
from cardlang.compiler.ir_dump import dump_ir


def test_every_node_is_printed_once_with_its_op_type_and_place() -> None:
    game = load_game(GAMES / "kuhn_poker.rcy")
    ir = game.ir
    text = dump_ir(ir, "kuhn_poker.rcy")
    printed = re.findall(r"#(\d{4}) (\w+)", text)
    reached = {int(n) for n, _ in printed}
    assert len(reached) == len(ir.nodes), "every node is reached from a part of the program"
    full = [(int(n), op) for n, op in printed if op in OPS]
    assert len(full) == len(ir.nodes), "each printed in full once (then 'above')"
    assert all(OPS[ir.nodes[n][0]] == op for n, op in full)
    assert "p0='STATE'" in text and "p0=iloc" in text and "p0===" in text
    assert re.search(r"#\d{4} CHOICE .* p0='CHOICE'.* decision", text)
    assert text.splitlines()[0].startswith("IR version ")


def test_a_game_with_procedures_and_end_forms_is_printed_whole() -> None:
    game = load_game(GAMES / "dominion.rcy")
    text = dump_ir(game.ir, "dominion.rcy")
    assert "\nprocedure DRAW " in text and "\n  on SMITHY:" in text
    assert "\nend reasons, then score parts:" in text and "\ntable score:" in text
    reached = {int(n) for n in re.findall(r"#(\d{4}) ", text)}
    assert len(reached) == len(game.ir.nodes)


def test_describe_ir_prints_it() -> None:
    proc = run_cli("describe", str(GAMES / "kuhn_poker.rcy"), "--ir")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("IR version ") and "\nbody:\n" in proc.stdout
