"""The TextMate grammar for `.altl` files (editors/textmate/agentltl.tmLanguage.json): valid
JSON, every pattern compiles, and every keyword and operator of grammar/agentltl.lark is
highlighted as one (a small tokenizer applies the grammar's rules as TextMate does: the
earliest match wins, ties go to the first rule)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = json.loads((ROOT / "editors" / "textmate" / "agentltl.tmLanguage.json").read_text(encoding="utf-8"))
LARK = (ROOT / "grammar" / "agentltl.lark").read_text(encoding="utf-8")
PUNCTUATION = {"(", ")", "[", "]", "{", "}", ",", ":", "."}
KEYWORD_TERMINALS = ("TERMINAL", "QUANT", "IMPLIES", "IFF", "OR", "AND", "NOT", "UNARY_TEMPORAL", "BINARY_TEMPORAL",
                     "TRUE", "FALSE", "NULL")


def rules(node=GRAMMAR):
    """The grammar's rules in the order TextMate tries them (includes expanded)."""
    for pattern in node.get("patterns", []):
        if "include" in pattern:
            yield from rules(GRAMMAR["repository"][pattern["include"].lstrip("#")])
        else:
            yield pattern
    if "match" in node or "begin" in node:
        yield node


def all_regexes(node=GRAMMAR):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("match", "begin", "end") and isinstance(value, str):
                yield value
            else:
                yield from all_regexes(value)
    elif isinstance(node, list):
        for item in node:
            yield from all_regexes(item)


def tokenize(line: str) -> list[tuple[str, str]]:
    """(text, scope) tokens of one line; a begin/end rule runs to its end on the line."""
    ordered = list(rules())
    out, pos = [], 0
    while pos < len(line):
        best = None
        for rule in ordered:
            m = re.compile(rule.get("match") or rule["begin"]).search(line, pos)
            if m and m.end() > m.start() and (best is None or m.start() < best[0].start()):
                best = (m, rule)
        if best is None:
            break
        m, rule = best
        if "begin" in rule:  # inner patterns (escapes) first, then the end pattern
            inside, stop = m.end(), len(line)
            while inside < len(line):
                end = re.compile(rule["end"]).search(line, inside)
                inner = [x for x in (re.compile(p["match"]).search(line, inside) for p in rule.get("patterns", []))
                         if x and (end is None or x.start() < end.start())]
                if inner:
                    inside = min(inner, key=lambda x: x.start()).end()
                    continue
                stop = end.end() if end else len(line)
                break
            out.append((line[m.start(): stop], rule["name"]))
            pos = stop
            continue
        captures = rule.get("captures")
        if captures:
            for group, capture in captures.items():
                if m.group(int(group)) is not None:
                    out.append((m.group(int(group)), capture["name"]))
        else:
            out.append((m.group(0), rule["name"]))
        pos = m.end()
    return out


def scope_of(line: str, word: str) -> str:
    return next(scope for text, scope in tokenize(line) if text == word)


def lark_keywords() -> set[str]:
    words = {w for w in re.findall(r'"([a-z_]+)"', LARK)}
    for terminal in KEYWORD_TERMINALS:
        definition = re.search(rf"^{terminal}(?:\.\d)?:(.*?)(?=^\S)", LARK, re.M | re.S).group(1)
        for pattern in re.findall(r"/(.*?)/", definition):
            words |= {w for w in re.findall(r"[A-Za-z_]+", pattern.replace(r"\b", " ").replace(r"\s", " "))}
    return words


def lark_operators() -> set[str]:
    without_regexes = re.sub(r"/(?:[^/\\\n]|\\.)+/", "", LARK)
    return {s for s in re.findall(r'"([^"\sA-Za-z_\\]+)"', without_regexes)} - PUNCTUATION


def test_the_grammar_is_valid_and_its_patterns_compile():
    assert GRAMMAR["scopeName"] == "source.altl" and GRAMMAR["fileTypes"] == ["altl"]
    regexes = list(all_regexes())
    assert len(regexes) > 20
    for regex in regexes:
        re.compile(regex)
    for pattern in GRAMMAR["patterns"]:
        assert pattern["include"].lstrip("#") in GRAMMAR["repository"]


def test_the_keywords_are_read_from_the_lark_grammar():
    words = lark_keywords()
    assert {"forall", "always", "weak", "since", "terminal", "rule", "severity", "X", "WX", "implies"} <= words
    assert {"==", "->", ":=", "<->", "&&", "||", "!", "%"} <= lark_operators()


@pytest.mark.parametrize("word", sorted(lark_keywords()))
def test_every_keyword_is_highlighted_as_a_keyword(word):
    line = "weak next x" if word == "weak" else f"{word} x"
    scope = scope_of(line, "weak next" if word == "weak" else word)
    assert scope.startswith(("keyword.", "constant.language", "storage.")), scope


@pytest.mark.parametrize("symbol", sorted(lark_operators()))
def test_every_operator_is_highlighted(symbol):
    assert scope_of(f"a {symbol} b", symbol).startswith("keyword.operator"), symbol


def test_a_policy_is_highlighted_as_expected():
    assert tokenize('rule search_first "search first" layer L3 weight 4 severity block:') == [
        ("rule", "keyword.declaration.altl"), ("search_first", "entity.name.function.altl"),
        ('"search first"', "string.quoted.double.altl"), ("layer", "keyword.declaration.altl"),
        ("L3", "constant.language.layer.altl"), ("weight", "keyword.other.meta.altl"),
        ("4", "constant.numeric.altl"), ("severity", "keyword.other.meta.altl"),
        ("block", "constant.language.severity.altl")]
    assert tokenize("    forall e in entities(final_answer.answer): e in outputs(read_file)  # grounded") == [
        ("forall", "keyword.control.quantifier.altl"), ("e", "variable.other.altl"),
        ("in", "keyword.control.quantifier.altl"), ("entities", "entity.name.function.call.altl"),
        ("final_answer", "variable.other.altl"), ("answer", "variable.other.altl"), ("e", "variable.other.altl"),
        ("in", "keyword.control.quantifier.altl"), ("outputs", "entity.name.function.call.altl"),
        ("read_file", "variable.other.altl"), ("# grounded", "comment.line.number-sign.altl")]
    assert scope_of("tool order_id_lookup(x: int)", "order_id_lookup") == "entity.name.function.altl"
    assert scope_of("notify(x) or Xfoo", "notify") == "entity.name.function.call.altl"  # no keyword prefix
    assert scope_of("notify(x) or Xfoo", "Xfoo") == "variable.other.altl"
    assert scope_of('message "a \\"quoted\\" word"', '"a \\"quoted\\" word"') == "string.quoted.double.altl"


def test_every_line_of_the_examples_tokenizes_completely():
    for path in sorted((ROOT / "examples").glob("*.altl")) + sorted((ROOT / "stdlib").glob("*.altl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            covered = "".join(text for text, _ in tokenize(line))
            stripped = re.sub(r"[\s(),:.\[\]{}]", "", line)
            assert re.sub(r"[\s(),:.\[\]{}]", "", covered) == stripped, (path.name, line)


def test_hover_does_not_say_a_tool_is_unused_while_the_file_has_errors():
    """The language server's hover lists the rules naming a tool from the checked policy; while
    the file has an error there is none, and it says so rather than "named by no rule"."""
    from policyc.lsp.analysis import analyse, hover

    good = "tool search(query: str) -> list[str]\ntool read(path: str)\nrule r: always (read -> once search)\n"
    line = 0, good.index("search")
    assert hover(analyse(good, "p.altl"), *line).endswith("named by rule `r`")
    broken = good + "rule s: called(serch)\n"  # an unknown tool: the file has an error
    shown = hover(analyse(broken, "p.altl"), *line)
    assert "named by no rule" not in shown and shown.endswith("the rules that name it are listed once the file "
                                                               "has no errors")
    unused = good + "tool other()\n"
    assert hover(analyse(unused, "p.altl"), 3, 5).endswith("named by no rule")
