# SPDX-License-Identifier: Apache-2.0
"""CollectiveRows: the rows of ``linksim coll --json`` as a list of dicts (docs/python.md)."""


class CollectiveRows(list):
    """The ``results`` array of ``linksim coll OP --json``: one dict per message size with the
    same fields and numbers (size_bytes, count, type, redop, root, time_us, algbw_GBps,
    busbw_GBps, algorithm, protocol, bottleneck, time_low_us, time_high_us, confidence).

    The document's other fields are attributes: topology, collective, ranks, mode,
    nccl_version, notes.
    """

    def __init__(self, document):
        super().__init__(document["results"])
        self.topology = document["topology"]
        self.collective = document["collective"]
        self.ranks = document["ranks"]
        self.mode = document["mode"]
        self.nccl_version = document["nccl_version"]
        self.notes = list(document["notes"])

    def to_pandas(self):
        """The rows as a pandas DataFrame, one column per field, plus topology, collective,
        ranks and mode columns so that frames of several machines can be concatenated.
        Needs pandas (Debian: python3-pandas)."""
        import pandas  # imported here: pandas is optional

        frame = pandas.DataFrame(list(self))
        for column, value in (("mode", self.mode), ("ranks", self.ranks),
                              ("collective", self.collective), ("topology", self.topology)):
            frame.insert(0, column, value)
        return frame
