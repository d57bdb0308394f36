"""The grammar of the HBase filter language (I4): filters joined by SKIP, WHILE, AND and OR."""

from __future__ import annotations

from hmodel.backend.memory.filter import node
from hmodel.backend.memory.filter.factory import build_filter, lookup_filter
from hmodel.backend.memory.filter.lexer import KEYWORDS, Source, Token, TokenKind, tokenize

__all__ = ["parse"]


def parse(source: Source) -> node.Node:
    """Parse ``source`` into its node tree.

    The grammar (keywords are case-sensitive; spaces and tabs separate tokens)::

        expression := conjunction ("OR" conjunction)*
        conjunction := unary ("AND" unary)*
        unary := ("SKIP" | "WHILE") unary | "(" expression ")" | filter
        filter := NAME "(" [argument ("," argument)*] ")"
        argument := 'quoted string' | bare word (integer, true/false, compare operator)

    ``SKIP``/``WHILE`` bind tighter than ``AND``, which binds tighter than ``OR``, as in
    HBase's ``ParseFilter``; a run of the same binary operator makes one list.

    Raises:
        FilterError: A syntax error (naming the offending token and its offset), an
            unknown filter, or bad arguments.
    """
    return _Parser(source).parse()


class _Parser:
    """A recursive-descent parser over the token list."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.tokens = tokenize(source)
        self.index = 0

    def _current(self) -> Token:
        return self.tokens[self.index]

    def _keyword(self, word: bytes) -> bool:
        token = self._current()
        return token.kind is TokenKind.WORD and token.value == word

    def _fail(self, expected: str) -> Exception:
        token = self._current()
        return self.source.error(f"expected {expected}, found {token.describe()}", token.start)

    def parse(self) -> node.Node:
        if self._current().kind is TokenKind.END:
            raise self.source.error("empty filter string", 0)
        tree = self._expression()
        if self._current().kind is not TokenKind.END:
            raise self._fail("AND, OR or end of filter")
        return tree

    def _expression(self) -> node.Node:
        parts = [self._conjunction()]
        while self._keyword(b"OR"):
            self.index += 1
            parts.append(self._conjunction())
        return parts[0] if len(parts) == 1 else node.FilterList(False, tuple(parts))

    def _conjunction(self) -> node.Node:
        parts = [self._unary()]
        while self._keyword(b"AND"):
            self.index += 1
            parts.append(self._unary())
        return parts[0] if len(parts) == 1 else node.FilterList(True, tuple(parts))

    def _unary(self) -> node.Node:
        if self._keyword(b"SKIP"):
            self.index += 1
            return node.Skip(self._unary())
        if self._keyword(b"WHILE"):
            self.index += 1
            return node.While(self._unary())
        if self._current().kind is TokenKind.LPAREN:
            self.index += 1
            inner = self._expression()
            if self._current().kind is not TokenKind.RPAREN:
                raise self._fail("')' closing the parenthesis")
            self.index += 1
            return inner
        return self._filter()

    def _filter(self) -> node.Node:
        name = self._current()
        if name.kind is not TokenKind.WORD or name.value in KEYWORDS:
            raise self._fail("a filter name, SKIP, WHILE or '('")
        factory = lookup_filter(self.source, name)
        self.index += 1
        if self._current().kind is not TokenKind.LPAREN:
            raise self._fail(f"'(' after filter name {name.describe()}")
        self.index += 1
        arguments: list[Token] = []
        if self._current().kind is not TokenKind.RPAREN:
            while True:
                if self._current().kind not in (TokenKind.STRING, TokenKind.WORD):
                    raise self._fail("an argument")
                arguments.append(self._current())
                self.index += 1
                if self._current().kind is TokenKind.RPAREN:
                    break
                if self._current().kind is not TokenKind.COMMA:
                    raise self._fail("',' or ')' in the argument list")
                self.index += 1
        self.index += 1
        return build_filter(self.source, name, factory, arguments)
