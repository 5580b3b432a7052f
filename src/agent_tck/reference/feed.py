"""What a CLI is told on its stdin: written as its pipe takes it, then closed.

A CLI that reads one prompt gets a feed that holds it and has ended: the supervisor writes it
and closes stdin. A CLI that is talked with (an ACP agent) gets a feed that stays open: what
the wrapper answers as the CLI speaks is `send`, and `end` closes stdin once all of it is
written. Such a feed may hold a last word for the deadline (`at_deadline`: an ACP agent's
`session/cancel`): sent when the deadline comes, before any signal, so that the child can end
its work on its own.

The feed also carries word the other way: `end_turn` says the CLI's turn has ended (its answer
is in), and the supervisor gives the CLI a grace period from then to end (decision D-38).
"""

from __future__ import annotations


class Feed:
    """Bytes waiting for the child's stdin, and whether more may come."""

    def __init__(self, data: bytes = b"", *, ended: bool = True) -> None:
        self.data = data
        self.at = 0  # how much of `data` is written
        self.ended = ended
        self.at_deadline = b""  # what asks the child to stop at the deadline (none: signals)
        self.turn_ended = False  # the CLI's turn has ended: it has a grace period to exit

    @property
    def pending(self) -> memoryview:
        """What is still to be written."""
        return memoryview(self.data)[self.at:]

    def send(self, data: bytes) -> None:
        """Queue `data` after what is pending; dropped once the feed has ended."""
        if not self.ended:
            self.data, self.at = self.data[self.at:] + data, 0

    def wrote(self, count: int) -> None:
        """`count` more bytes reached the pipe."""
        self.at += count

    def end(self) -> None:
        """Nothing more will be sent: stdin closes once what is pending is written."""
        self.ended = True

    def deadline(self) -> bool:
        """The deadline came: send the last word, if there is one and the feed is still open.
        True when it was sent (the child is given the grace period to end before a signal)."""
        if self.ended or not self.at_deadline:
            return False
        self.send(self.at_deadline)
        return True

    def end_turn(self) -> None:
        """The CLI's turn has ended: the request has its answer, and the CLI is to end."""
        self.turn_ended = True

    def broken(self) -> None:
        """The child closed its stdin: what is pending and all that is sent later is lost."""
        self.data, self.at, self.ended = b"", 0, True
