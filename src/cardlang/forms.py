"""The surface shape of every form, in one place (messages, docs and did-you-mean use it)."""

from __future__ import annotations

FORM_SIGNATURES: dict[str, str] = {
    "game": "(game (declare ...)* (setup ...) FLOW+ (scoring min|max INT))",
    "declare": "(declare VALUE 'VAR)",
    "setup": "(setup (create players INT) [(create teams ...)] (create deck ...)+)",
    "scoring": "(scoring min|max INT)",
    "create": "(create players INT) | (create teams (0, 2) (1, 3)) | "
    "(create deck [NAME] LOCATION (deck (KEY (V1, V2)) ...))",
    "deck": "(deck (KEY (V1, V2, ...)) ...)",
    "stage": "(stage player|team (end BOOL) BODY+)",
    "end": "(end BOOL)",
    "do": "(do (CONDACT ...))",
    "choice": "(choice (CONDACT ...))",
    "any": "(any COLLECTION 'VAR BODY)",
    "all": "(all COLLECTION 'VAR BODY)",
    "let": "(let VALUE 'VAR BODY)",
    "move": "(move CARD (top|bottom|N LOCATION))",
    "remember": "(remember CARD (top|bottom|N MEM-LOCATION))",
    "forget": "(forget (top|bottom|N MEM-LOCATION))",
    "shuffle": "(shuffle LOCATION)",
    "set": "(set (OWNER sto NAME) INT) | (set (OWNER str NAME) STRING) | "
    "(set (OWNER points NAME) (((KEY : VALUE) ... INT) ...))",
    "inc": "(inc (OWNER sto NAME) INT)",
    "dec": "(dec (OWNER sto NAME) INT)",
    "cycle": "(cycle next|current next|current|previous|PLAYER)",
    "turn": "(turn pass)",
    "repeat": "(repeat INT ACTION) | (repeat all (move ...))",
    "top": "(top COLLECTION) | (top INT COLLECTION)",
    "bottom": "(bottom COLLECTION) | (bottom INT COLLECTION)",
    "max": "(max COLLECTION using POINTS)",
    "min": "(min COLLECTION using POINTS)",
    "actual": "(actual CARD)",
    "owner": "(owner CARD)",
    "team": "(team PLAYER)",
    "other": "(other player|team)",
    "current": "(current player|team)",
    "next": "(next player|team)",
    "previous": "(previous player|team)",
    "union": "(union COLLECTION+) | (union (all COLLECTION 'VAR LOCATION))",
    "intersect": "(intersect COLLECTION+)",
    "disjunction": "(disjunction COLLECTION+)",
    "filter": "(filter COLLECTION 'VAR BOOL)",
    "sort": "(sort COLLECTION using POINTS)",
    "run": "(run top|bottom INT COLLECTION using POINTS)",
    "runs": "(runs largest|all INT COLLECTION using POINTS)",
    "tuples": "(tuples INT COLLECTION using POINTS)",
    "subsets": "(subsets COLLECTION)",
    "partition": "(partition KEY COLLECTION+)",
    "range": "(range INT .. INT)",
    "random": "(random INT) | (random INT .. INT)",
    "tri": "(tri INT)",
    "fib": "(fib INT)",
    "size": "(size COLLECTION)",
    "sum": "(sum COLLECTION using POINTS)",
    "score": "(score CARD using POINTS)",
    "cardatt": "(cardatt KEY CARD)",
    "and": "(and BOOL BOOL+)",
    "or": "(or BOOL BOOL+)",
    "not": "(not BOOL)",
}

#: Every lower-case word the grammar knows (keywords of forms and their arguments).
KEYWORDS: frozenset[str] = frozenset(FORM_SIGNATURES) | frozenset(
    {
        "players", "teams", "player", "using", "largest", "pass",
        "vloc", "iloc", "hloc", "mem", "sto", "str", "points",
    }
)
