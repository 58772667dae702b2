"""``cardlang describe``: a game's situations, vector layouts and action vocabulary, for
someone about to design a network for it.

Pipeline position: information, for the ``cardlang describe`` command; it only reads
``Encoder`` (encode.py) and ``Vocabulary`` (vocabulary.py).  ``description`` gives the
JSON object; ``print_tables`` the same as rich tables: locations in one row each (size
and per-type counts), the vocabulary in one row per condact (its key pattern and index
range).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardlang.information.encode import Block, Encoder
from cardlang.information.vocabulary import Branch, Site, Vocabulary

if TYPE_CHECKING:
    from rich.console import Console

    from cardlang.engine.game import Game

#: Values listed in full in a vocabulary row; more are shortened (--json has them all).
SHOWN_VALUES = 8


def description(game: Game) -> dict[str, Any]:
    """Everything describe prints, as one JSON-ready object."""
    enc = Encoder.of(game)
    vocab = enc.vocabulary
    common = len(enc.common_blocks)
    return {
        "game": game.name,
        "players": game.nplayers,
        "card_types": list(enc.card_types),
        "width": enc.width,
        "n_actions": enc.n_actions,
        "common_layout": [_block_json(b) for b in enc.common_blocks],
        "situations": [
            {
                "id": i,
                "name": layout.situation,
                "text": vocab.text(layout.situation),
                "sites": [s.position for s in vocab.sites_of(layout.situation)],
                "size": layout.size,
                "extra_layout": [_block_json(b) for b in layout.blocks[common:]],
                "keys": list(vocab.keys(layout.situation)),
            }
            for i, layout in enumerate(enc.layouts)
        ],
    }


def _block_json(b: Block) -> dict[str, Any]:
    return {
        "start": b.start,
        "stop": b.stop,
        "what": b.what,
        "owner": b.owner,
        "name": b.name,
        "labels": list(b.labels),
    }


# ---------------------------------------------------------------- tables


def _cells(*texts: str) -> list[Any]:
    """Plain cells: keys like ``[C=<card>]`` are text, not rich markup."""
    from rich.text import Text

    return [Text(t) for t in texts]


def print_tables(game: Game, console: Console) -> None:
    enc = Encoder.of(game)
    vocab = enc.vocabulary
    types = ", ".join(enc.card_types)
    console.print(
        f"[bold]{game.name}[/]: {game.nplayers} players, {len(enc.situations)} situations, "
        f"vectors of up to {enc.width} floats, vocabularies of up to {enc.n_actions} keys"
    )
    console.print(
        f"card types ({len(enc.card_types)}, in index order): {types}",
        markup=False,
        highlight=False,
    )
    console.print(_situations_table(enc, vocab))
    if enc.layouts:
        common = enc.common_blocks
        console.print(_layout_table("layout of every situation", common))
        for layout in enc.layouts:
            extra = layout.blocks[len(common) :]
            if extra:
                console.print(_layout_table(f"then, in {layout.situation}", extra))
    console.print(_vocabulary_table(vocab))


def _situations_table(enc: Encoder, vocab: Vocabulary) -> Any:
    from rich.table import Table

    table = Table(title="situations", title_justify="left")
    for name, justify in [("id", "right"), ("situation", "left"), ("what it is", "left")]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("floats", justify="right")
    table.add_column("keys", justify="right")
    for i, layout in enumerate(enc.layouts):
        s = layout.situation
        table.add_row(*_cells(str(i), s, vocab.text(s), str(layout.size), str(len(vocab.keys(s)))))
    return table


def _layout_table(title: str, blocks: tuple[Block, ...]) -> Any:
    """One row per location (its size and count blocks together), storage group or
    header; ``k`` stands for the index of a card type in the list above."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.add_column("floats", justify="right")
    table.add_column("owner")
    table.add_column("what")
    table.add_column("values")
    for run in _families(_grouped(blocks)):
        first, last = run[0][0], run[-1][-1]
        span = f"{first.start}-{last.stop - 1}" if last.stop - first.start > 1 else str(first.start)
        what, values = _what(first), _values(run[0])
        if len(run) > 1:  # NAME, NAME#1 ... NAME#n: one row, one stride
            base, _, kind = first.name.partition("(")
            what = f"{base.partition('#')[0]}#0..{len(run) - 1}({kind}"
            values = f"{len(run)} x {run[0][-1].stop - first.start} floats, each {values}"
        table.add_row(*_cells(span, first.owner or "-", what, values))
    return table


def _families(groups: list[list[Block]]) -> list[list[list[Block]]]:
    """Consecutive locations of one indexed family (NAME, NAME#1, ...) with the same
    blocks, in one run."""
    runs: list[list[list[Block]]] = []
    for g in groups:
        if runs and _same_family(runs[-1][-1], g):
            runs[-1].append(g)
        else:
            runs.append([g])
    return runs


def _same_family(a: list[Block], b: list[Block]) -> bool:
    def shape(g: list[Block]) -> tuple[object, ...]:
        name, _, kind = g[0].name.partition("(")
        return (g[0].owner, name.partition("#")[0], kind, tuple(x.what for x in g))

    return a[0].what == "size" and "#" in b[0].name and shape(a) == shape(b)


def _grouped(blocks: tuple[Block, ...]) -> list[list[Block]]:
    """Blocks of one location (size, cards/known/expected) in one group."""
    groups: list[list[Block]] = []
    for b in blocks:
        if groups and b.what in ("cards", "known", "expected") and groups[-1][0].what == "size":
            groups[-1].append(b)
        else:
            groups.append([b])
    return groups


def _what(b: Block) -> str:
    if b.what == "current":
        return "current player (one-hot)"
    if b.what == "storage":
        return "integer storages"
    if b.what in ("top", "bottom"):
        return f"{b.name}: {b.what} card (one-hot)"
    return b.name


def _values(rows: list[Block]) -> str:
    """What the positions of a row hold, from its first one; k: a card type's index."""
    first = rows[0]
    if first.what in ("current", "storage"):
        return ", ".join(first.labels)
    if first.what in ("top", "bottom"):
        return "+k: 1 if the card is of type k"
    parts = ["+0: size"]
    at = 1
    for b in rows[1:]:
        parts.append(f"+{at}+k: {b.what}")
        at += len(b.labels)
    return "; ".join(parts)


def _vocabulary_table(vocab: Vocabulary) -> Any:
    """One row per condact: the index range of its keys and their pattern."""
    from rich.table import Table

    table = Table(title="action vocabulary (one row per condact)", title_justify="left")
    table.add_column("situation")
    table.add_column("indices", justify="right")
    table.add_column("key pattern")
    table.add_column("values")
    table.add_column("condact")
    for s in vocab.situations:
        keys = vocab.keys(s)
        at = 0
        for site in vocab.sites_of(s):
            for branch in site.branches:
                n = sum(1 for k in keys[at:] if _in_branch(k, site, branch))
                rows = f"{at}-{at + n - 1}" if n > 1 else (str(at) if n else "-")
                table.add_row(
                    *_cells(
                        s,
                        rows,
                        _pattern(site, branch),
                        _fork_values(branch),
                        _snippet(vocab, site, branch),
                    )
                )
                at += n
    return table


def _in_branch(key: str, site: Site, branch: Branch) -> bool:
    head = f"{site.prefix}{branch.index}"
    return key == head or key.startswith(head + ":")


def _pattern(site: Site, branch: Branch) -> str:
    parts = [
        f"[{f.var}=<{f.type}>]" if f.optional else f"{f.var}=<{f.type}>"
        for f in branch.forks
        if f.keyed
    ]
    head = f"{site.prefix}{branch.index}"
    return f"{head}:{','.join(parts)}" if parts else head


def _fork_values(branch: Branch) -> str:
    out = []
    for f in branch.forks:
        if not f.keyed:
            out.append(f"{f.var}: not keyed (over the cap)")
            continue
        shown = ", ".join(f.domain[:SHOWN_VALUES])
        more = f", ... ({len(f.domain)})" if len(f.domain) > SHOWN_VALUES else ""
        out.append(f"{f.var}: {shown}{more}")
    return "; ".join(out)


def _snippet(vocab: Vocabulary, site: Site, branch: Branch) -> str:
    """The condact as written; a labelled one by its label first ("Check": ...)."""
    code = vocab.source.snippet(branch.span, width=48)
    labels = site.choice.labels
    label = labels[branch.index] if branch.index < len(labels) else None
    return f'"{label.text}": {code}' if label is not None else code
