"""Named failures of attestation: each carries one stable ATTEST-* code from `converter.errors`.

A signature, subject or envelope that does not check is an integrity failure (exit 5): the
verifier was able to look and what it saw is wrong. A key that cannot be loaded, or an
attestation file that is no envelope at all (or one with more signatures than are tried), is a
refusal (exit 2): nothing could be checked or signed.
"""

from __future__ import annotations

from typing import Any, ClassVar

from converter.errors import CODES, IntegrityFailure, Problem, Refused


class AttestationFailure(IntegrityFailure):
    """An attestation does not verify; `code` says which check failed. Raise a subclass."""

    code_for_class: ClassVar[str]

    def __init__(self) -> None:
        super().__init__(self.code_for_class)


class EnvelopeMalformed(AttestationFailure):
    code_for_class = "ATTEST-ENVELOPE-MALFORMED"


class SignatureInvalid(AttestationFailure):
    """`other_key`: every signature's keyid names another key than the one tried. The keyid is
    unsigned, so this decides nothing; it only says the likelier cause (the wrong key given,
    not an altered envelope)."""

    code_for_class = "ATTEST-SIGNATURE-INVALID"
    OTHER_KEY: ClassVar[str] = "its keyid names another key"

    def __init__(self, *, other_key: bool = False) -> None:
        super().__init__()
        if other_key:
            self.problems = [Problem(self.code_for_class, where=self.OTHER_KEY)]


class PayloadTypeUnsupported(AttestationFailure):
    code_for_class = "ATTEST-PAYLOAD-TYPE"


class StatementInvalid(AttestationFailure):
    code_for_class = "ATTEST-STATEMENT-INVALID"


class SubjectMismatch(AttestationFailure):
    """Signed by the key, over other bytes than the bundle's; `signed_receipt` is what it
    signed, so the receipt can be compared too."""

    code_for_class = "ATTEST-SUBJECT-MISMATCH"

    def __init__(self, signed_receipt: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.signed_receipt = signed_receipt


class NotAnEnvelope(Refused):
    """The attestation file is not a DSSE envelope at all (not JSON, not an object, or an object
    with neither `payload` nor `payloadType`): there is no signature to check, as with a file
    that is not a bundle. An envelope missing a field is EnvelopeMalformed."""

    code: ClassVar[str] = "ATTEST-NOT-AN-ENVELOPE"

    def __init__(self) -> None:
        super().__init__([Problem(self.code)])


class TooManySignatures(Refused):
    """An envelope with more signature entries than `dsse.MAX_SIGNATURES`: refused unread, so
    a crafted one cannot make verification work without end. DSSE sets no limit and nothing
    was found altered, so it is no integrity failure: the check did not run (exit 2)."""

    code: ClassVar[str] = "ATTEST-TOO-MANY-SIGNATURES"

    def __init__(self) -> None:
        super().__init__([Problem(self.code)])


class SigningKeyRefused(Refused):
    """A signing or verification key file could not be created or used."""

    def __init__(self, code: str, where: str | None = None) -> None:
        if not code.startswith(("ATTEST-KEY-", "ATTEST-PUBLIC-KEY-")) or code not in CODES:
            raise KeyError(code)  # a bug, not an input condition
        super().__init__([Problem(code, where=where)])
        self.code = code
