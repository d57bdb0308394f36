"""The microblog tables: users with fans and follows, and purchases newest first."""

from __future__ import annotations

from hmodel.schema import Family, Table, UniformSplits

__all__ = ["POST", "PURCHASE", "REGIONS", "TABLES", "TIMELINE", "USER", "USER_BY_NICKNAME"]

#: Regions of each table. Both keys lead with 4 bytes of an MD5 hash of the user id (K4),
#: uniformly random bytes, so byte-uniform split points share the users out evenly (K11).
REGIONS = 4

# user: ``i`` holds the profile (nickname, gender, date of birth, address), ``f`` one column
# per fan (``f:<user id> = type``, F6), ``o`` one column per account the user follows: the
# relationship is kept on both sides (R6), so "my fans" and "whom I follow" are each one
# family read. Three families (F1) because the three are read apart; one-letter names and
# one-letter qualifiers (F2).
USER = Table(
    "user",
    [Family("i"), Family("f"), Family("o")],
    splits=UniformSplits(REGIONS, end=b"\xff"),
)

# purchase: ``[md5(user)[:4]][user][Long.MAX_VALUE - ts][product]`` (K6, R8), a tall list of
# one row per purchase; family ``p`` holds what was bought. The hash prefix spreads users
# over the regions while one user's purchases stay contiguous (K4).
PURCHASE = Table(
    "purchase",
    [Family("p")],
    splits=UniformSplits(REGIONS, end=b"\xff"),
)

# post: ``[md5(author)[:4]][author][Long.MAX_VALUE - ts][post]``, a user's own posts newest
# first (K6, R8); family ``t`` holds the text.
POST = Table(
    "post",
    [Family("t")],
    splits=UniformSplits(REGIONS, end=b"\xff"),
)

# timeline: ``[md5(reader)[:4]][reader][Long.MAX_VALUE - ts][post]``, one row per post in
# each follower's home timeline, written when the post is made (fan-out on write): a copy
# of the post (R3/R7) so the home timeline is one prefix scan, newest first (K6, R8). In
# production a family TTL (F8) would age old entries out; the demo's clock starts in the
# past, so it has none.
TIMELINE = Table(
    "timeline",
    [Family("t")],
    splits=UniformSplits(REGIONS, end=b"\xff"),
)

# user_by_nickname: the unique index of nicknames (I1): ``[nickname]`` -> the user's
# rowkey, claimed with a conditional write so two users never hold one nickname.
USER_BY_NICKNAME = Table("user_by_nickname", [Family("x")])

#: The tables in creation order.
TABLES = (USER, PURCHASE, POST, TIMELINE, USER_BY_NICKNAME)
