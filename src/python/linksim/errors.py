# SPDX-License-Identifier: Apache-2.0
"""The exceptions linksim raises (docs/python.md#errors).

Every error is a ``linksim.Error``: bad input (a malformed topology, an unknown model, a
keyword out of range) is an ``InputError``, the library's ConfigError; a broken invariant
inside linksim is an ``InternalError``. None of them ends the interpreter.
"""


class Error(Exception):
    """An error of linksim, with where it happened in an input file.

    Attributes:
        message: what is wrong, without the position ("expected a bandwidth ...").
        file: the input file (None when the error is about a call's arguments).
        line, column: 1-based position in ``file``; 0 when there is none.
        notes: extra lines ("in links[3] (gpu7 -> nvswitch2)").
        diagnostic: the message as the CLI prints it, with the offending source line and a
            caret under the column when the file can be read.
    str(error) is the one-line form "file:line:column: error: message" the CLI prints.
    """

    def __init__(self, message, file=None, line=0, column=0, notes=(), summary=None,
                 diagnostic=None):
        super().__init__(summary or message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.notes = list(notes)
        self.diagnostic = diagnostic or summary or message


class InputError(Error, ValueError):
    """Bad input: a file, a text or a keyword argument linksim cannot use."""


class InternalError(Error, RuntimeError):
    """A bug in linksim (a broken internal check); ``file`` and ``line`` are in its sources."""
