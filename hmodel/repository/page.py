"""Pages of models with opaque, signed, URL-safe resume tokens."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

import attrs

from hmodel.errors import DecodeError, TokenError, ValidationError

__all__ = ["Page", "Position", "TokenCodec"]

T = TypeVar("T")

_MAC_BYTES = 16
_VERSION = 1

#: The default HMAC key of page tokens: random, made once per process and shared by every
#: repository, store and indexed repository of the process that is given no secret.
_PROCESS_SECRET = os.urandom(32)


@attrs.frozen
class Position:
    """Where one key range of a scan stands: the last row returned, or exhausted.

    ``last_row=None`` and ``done=False`` means nothing was returned from this range yet.
    """

    last_row: bytes | None = None
    done: bool = False


class Page(Generic[T]):
    """One page of results and the token that resumes right after it.

    The token is made when :attr:`next_token` is first read, not when the page is: a
    caller reading every page of ``pages()`` in one go, asking for no token, pays for
    none (a token is a JSON payload and an HMAC over every span's position).

    Args:
        items: The models on this page, in scan order.
        next_token: The token, when it is known already.
        errors: Rows that did not decode and were skipped (see :attr:`errors`).
        resume: Makes the token on first use instead (``next_token`` must then be
            ``None``); called at most once.

    Attributes:
        items: The models on this page, in scan order.
        errors: Rows of the range that did not decode and were skipped (only with
            ``on_error="skip"``), one :class:`~hmodel.errors.DecodeError` each, naming the
            row and what it lacks.
    """

    __slots__ = ("_resume", "_token", "errors", "items")

    def __init__(
        self,
        items: Sequence[T],
        next_token: str | None,
        errors: Sequence[DecodeError] = (),
        *,
        resume: Callable[[], str] | None = None,
    ) -> None:
        self.items = items
        self.errors = errors
        self._token = next_token
        self._resume = resume

    @property
    def next_token(self) -> str | None:
        """Pass it back to get exactly the following rows; ``None`` when the scan is exhausted."""
        resume = self._resume
        if resume is not None:
            self._token = resume()
            self._resume = None
        return self._token

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Page):
            return NotImplemented
        return (self.items, self.next_token, self.errors) == (
            other.items,
            other.next_token,
            other.errors,
        )

    def __hash__(self) -> int:
        return hash((self.items, self.next_token, self.errors))

    def __repr__(self) -> str:
        return f"Page(items={self.items!r}, next_token={self.next_token!r}, errors={self.errors!r})"


class TokenCodec:
    """Encodes scan positions as tokens a client can hold but not forge or reuse elsewhere.

    Layout before base64url (no padding): the JSON payload ``{"v": 1, "q": <query
    fingerprint>, "p": [[<last row base64 or null>, <done>], ...]}`` followed by the first
    16 bytes of its HMAC-SHA256 under ``secret``. A token whose MAC does not verify, whose
    version is unknown or whose fingerprint belongs to another query raises
    :class:`~hmodel.errors.TokenError`.

    Args:
        secret: The HMAC key (non-empty bytes). Tokens are unforgeable only if it is
            secret. ``None``: the process's default key, random, made once per process
            and shared by every codec of the process given no key, so an object built per
            request (a store, a repository, an indexed repository) accepts the tokens of
            another; tokens then verify in this process only, until it exits. A service
            running several processes (workers, replicas, restarts) must pass the same
            secret to every one of them.

    Raises:
        ValidationError: ``secret`` is not ``None`` or non-empty bytes.
    """

    def __init__(self, secret: bytes | None = None) -> None:
        if secret is not None and (not isinstance(secret, bytes) or not secret):
            raise ValidationError(
                "token_secret is non-empty bytes (or None: the process's default)",
                field="token_secret",
            )
        self._configured = secret is not None
        self._secret = _PROCESS_SECRET if secret is None else secret

    @property
    def configured(self) -> bool:
        """Whether the key was given (else: the process's default key)."""
        return self._configured

    def _mac(self, payload: bytes) -> bytes:
        return hmac.new(self._secret, payload, hashlib.sha256).digest()[:_MAC_BYTES]

    def encode(self, fingerprint: str, positions: Sequence[Position]) -> str:
        """Return the token for ``positions`` of the query identified by ``fingerprint``."""
        body = {
            "v": _VERSION,
            "q": fingerprint,
            "p": [
                [None if p.last_row is None else base64.b64encode(p.last_row).decode(), p.done]
                for p in positions
            ],
        }
        payload = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
        return base64.urlsafe_b64encode(payload + self._mac(payload)).rstrip(b"=").decode()

    def decode(self, token: str, fingerprint: str, ranges: int) -> list[Position]:
        """Verify ``token`` and return its positions, one per key range of the query.

        Raises:
            TokenError: Malformed, tampered with, signed with another key (another
                process's default key, without a configured secret), or issued for
                another query.
        """
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (ValueError, TypeError) as exc:
            raise TokenError("resume token is not base64url", value=token) from exc
        payload, mac = raw[:-_MAC_BYTES], raw[-_MAC_BYTES:]
        if len(raw) <= _MAC_BYTES or not hmac.compare_digest(mac, self._mac(payload)):
            raise TokenError(
                "resume token was altered or signed with another secret"
                + (
                    ": this token_secret is not the one that signed it"
                    if self._configured
                    else ": no token_secret is configured, so tokens verify only in the "
                    "process that issued them, until it exits; a service running several "
                    "processes must pass the same token_secret to each"
                ),
                value=token,
            )
        try:
            body = json.loads(payload)
            if body["v"] != _VERSION:
                raise TokenError("resume token version is not supported", value=token)
            if body["q"] != fingerprint:
                raise TokenError("resume token belongs to another query", value=token)
            positions = [
                Position(None if row is None else base64.b64decode(row), bool(done))
                for row, done in body["p"]
            ]
        except TokenError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise TokenError("resume token payload is malformed", value=token) from exc
        if len(positions) != ranges:
            raise TokenError("resume token does not match the query's key ranges", value=token)
        return positions
