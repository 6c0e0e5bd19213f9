"""One error root, stable reason codes, and the exit code each failure maps to.

Every diagnostic the tool prints is built from the table in `errors/codes.py`: a fixed message
and a fixed fix, plus a location (file role, keyed label, line number). Nothing from an input
file is ever interpolated, which is what keeps error text inside the privacy firewall (SPEC §6.4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import TypeVar

from converter.errors.codes import CODES, RETIRED_CODES, CodeInfo

__all__ = [
    "CODES",
    "RETIRED_CODES",
    "CodeInfo",
    "ConverterError",
    "Exit",
    "Gathered",
    "IntegrityFailure",
    "LineProblems",
    "Problem",
    "Refused",
]


class Exit(IntEnum):
    OK = 0
    REFUSED = 2
    ASSIST = 3
    STOP = 4
    INTEGRITY = 5
    USAGE = 64
    INTERNAL = 70
    INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT


@dataclass(frozen=True, slots=True)
class Problem:
    """One occurrence of a coded finding. `file` indexes the source tree's file list."""

    code: str
    file: int | None = None
    line: int | None = None
    # Local path of a file that was not bound (a stray or a symlink): printed only with
    # --show-paths, never written to an artifact.
    local_path: str | None = None
    # Where in a contract or bundle: a path of field names and allowed names only (never a value).
    where: str | None = None

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise KeyError(self.code)  # a bug, not an input condition

    @property
    def blocking(self) -> bool:
        return CODES[self.code].blocking


class ConverterError(Exception):
    """Root of every failure the CLI reports; carries its exit code, never input content."""

    exit_code: Exit = Exit.INTERNAL


class Refused(ConverterError):
    """The input is ambiguous, incomplete, stale or invalid; nothing was written."""

    exit_code = Exit.REFUSED

    def __init__(
        self,
        problems: list[Problem],
        labels: dict[int, str] | None = None,
        paths: dict[int, str] | None = None,
    ) -> None:
        super().__init__(f"{len(problems)} refusal(s)")
        self.problems = problems
        self.labels = labels or {}  # file index -> "role/label" (content-free)
        self.paths = paths or {}  # file index -> local relative path: --show-paths only
        # What was found that the refusal rests on, said below it without fixes (verify's
        # ATTEST-REDERIVE-RENAMED: the producer's fixes are not the verifier's to take).
        self.details: Refused | None = None


class LineProblems:
    """The problems of one file's lines, appended to `into` up to `limit` (the reader's
    `limits.MAX_LINE_PROBLEMS`); past it, none more, and `close` adds one
    CC-LINE-TOO-MANY-PROBLEMS at the first line not listed, which refuses the file."""

    __slots__ = ("dropped", "file", "into", "kept", "limit")

    def __init__(self, into: list[Problem], file: int, limit: int) -> None:
        self.into = into
        self.file = file
        self.limit = limit
        self.kept = 0
        self.dropped = 0  # the first line not listed; 0: none

    def add(self, code: str, line: int) -> None:
        if self.kept < self.limit:
            self.into.append(Problem(code, self.file, line))
            self.kept += 1
        elif not self.dropped:
            self.dropped = line

    def close(self) -> None:
        if self.dropped:
            self.into.append(Problem("CC-LINE-TOO-MANY-PROBLEMS", self.file, self.dropped))


T = TypeVar("T")


class Gathered:
    """Checks that can refuse, each run and its refusal kept: a run says every such finding at
    once (a bad price card and an existing output; an attestation missing and a bad key), not
    one per attempt. `done` raises them together."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def __call__(self, check: Callable[[], T]) -> T | None:
        try:
            return check()
        except Refused as refused:
            self.problems.extend(refused.problems)
            return None

    def refuse(self, problem: Problem) -> None:
        self.problems.append(problem)

    def done(self) -> None:
        if self.problems:
            raise Refused(self.problems)


class IntegrityFailure(ConverterError):
    """A digest or signature does not match (exit 5). `problems`: every mismatch found (several
    bundles can each have one); `refusals`: other inputs' refusals, printed with them;
    `details`: what differs, as the check found it (with its files' labels and paths), said
    without a producer's fixes (the one reading them checks a bundle someone else made)."""

    exit_code = Exit.INTEGRITY

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code
        self.problems = [Problem(code)]
        self.refusals: list[Problem] = []
        self.details: Refused | None = None

    @classmethod
    def several(cls, problems: list[Problem], refusals: list[Problem]) -> IntegrityFailure:
        failure = cls(problems[0].code)
        failure.problems = list(problems)
        failure.refusals = list(refusals)
        return failure
