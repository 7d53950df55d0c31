"""Data generators of fleet (paddle.distributed.fleet.MultiSlotDataGenerator,
MultiSlotStringDataGenerator): a user's generate_sample turns raw lines into
[(slot name, [values...]), ...]; the generator writes them in the MultiSlot text protocol that
fleet's datasets read (per slot: its length, then its values; slots separated by spaces; one
sample a line). They run as a dataset's pipe_command (run_from_stdin) or from memory."""
import sys

__all__ = []


class DataGenerator:
    """The base of the data generators: batching and the stdin / memory drivers."""

    def __init__(self):
        self._proto_info = None
        self.batch_size_ = 32

    def set_batch(self, batch_size):
        """The number of samples generate_batch receives at a time.

        Examples:
            >>> from oar.distributed import fleet
            >>> g = fleet.MultiSlotDataGenerator()
            >>> g.set_batch(4)
            >>> print(g.batch_size_)
            4
        """
        self.batch_size_ = batch_size

    def _emit(self, batch):
        for sample in self.generate_batch(batch)():
            sys.stdout.write(self._gen_str(sample))

    def _drive(self, lines):
        batch = []
        for line in lines:
            for parsed in self.generate_sample(line)():
                if parsed is None:
                    continue
                batch.append(parsed)
                if len(batch) == self.batch_size_:
                    self._emit(batch)
                    batch = []
        if batch:
            self._emit(batch)

    def run_from_memory(self):
        """Writes the samples of generate_sample(None) to stdout (for debugging).

        Examples:
            >>> from oar.distributed import fleet
            >>> class G(fleet.MultiSlotDataGenerator):
            ...     def generate_sample(self, line):
            ...         def it():
            ...             for i in range(2):
            ...                 yield [("x", [i, i + 1]), ("y", [i])]
            ...         return it
            >>> G().run_from_memory()
            2 0 1 1 0
            2 1 2 1 1
        """
        self._drive([None])

    def run_from_stdin(self):
        """Reads lines from stdin, parses each with generate_sample and writes the samples to
        stdout in the MultiSlot protocol (the dataset's pipe_command runs this).

        Examples:
            >>> import io, sys
            >>> from oar.distributed import fleet
            >>> class G(fleet.MultiSlotStringDataGenerator):
            ...     def generate_sample(self, line):
            ...         def it():
            ...             yield [("words", line.split())]
            ...         return it
            >>> stdin, sys.stdin = sys.stdin, io.StringIO("a b\\nc\\n")
            >>> G().run_from_stdin()
            2 a b
            1 c
            >>> sys.stdin = stdin
        """
        self._drive(sys.stdin)

    def _gen_str(self, line):
        raise NotImplementedError("pls use MultiSlotDataGenerator or PairWiseDataGenerator")

    def generate_sample(self, line):
        """To override: returns a generator function yielding [(name, [values]), ...] per sample
        of the raw line."""
        raise NotImplementedError("Please rewrite this function to return a list or tuple: "
                                  "[(name, [feasign, ...]), ...] or ((name, [feasign, ...]), ...)")

    def generate_batch(self, samples):
        """To override for batch-level processing: returns a generator function over the
        samples (by default they pass as they are)."""
        def local_iter():
            yield from samples
        return local_iter


class MultiSlotStringDataGenerator(DataGenerator):
    """A data generator whose slot values are strings, written as they are.

    Examples:
        >>> from oar.distributed import fleet
        >>> g = fleet.MultiSlotStringDataGenerator()
        >>> print(g._gen_str([("words", ["1926", "08", "17"]), ("label", ["1"])]), end="")
        3 1926 08 17 1 1
    """

    def _gen_str(self, line):
        if isinstance(line, zip):
            line = list(line)
        if not isinstance(line, (list, tuple)):
            raise ValueError("the output of process() must be in list or tuple type"
                             "Examples: [('words', ['1926', '08', '17']), ('label', ['1'])]")
        parts = []
        for name, elements in line:
            parts.append(" ".join([str(len(elements))] + list(elements)))
        return " ".join(parts) + "\n"


class MultiSlotDataGenerator(DataGenerator):
    """A data generator whose slot values are ints or floats. The first sample fixes the slots
    (names and order); a slot is 'uint64' until a float appears in it, then 'float'
    (``_proto_info``). Each slot needs at least one value.

    Examples:
        >>> from oar.distributed import fleet
        >>> g = fleet.MultiSlotDataGenerator()
        >>> print(g._gen_str([("words", [1926, 8, 17]), ("label", [1])]), end="")
        3 1926 8 17 1 1
        >>> print(g._gen_str([("words", [0.5]), ("label", [0])]), end="")
        1 0.5 1 0
        >>> print(g._proto_info)
        [('words', 'float'), ('label', 'uint64')]
    """

    @staticmethod
    def _check_slot(name, elements):
        if not isinstance(name, str):
            raise ValueError(f"name{type(name)} must be in str type")
        if not isinstance(elements, list):
            raise ValueError(f"elements{type(elements)} must be in list type")
        if not elements:
            raise ValueError("the elements of each field can not be empty, you need padding it in process().")

    def _gen_str(self, line):
        if isinstance(line, zip):
            line = list(line)
        if not isinstance(line, (list, tuple)):
            raise ValueError("the output of process() must be in list or tuple type"
                             "Example: [('words', [1926, 08, 17]), ('label', [1])]")
        parts = []
        if self._proto_info is None:
            self._proto_info = []
            for name, elements in line:
                self._check_slot(name, elements)
                self._proto_info.append((name, "uint64"))
                for e in elements:
                    if isinstance(e, float):
                        self._proto_info[-1] = (name, "float")
                    elif not isinstance(e, int):
                        raise ValueError(f"the type of element{type(e)} must be in int or float")
                parts.append(" ".join([str(len(elements))] + [str(e) for e in elements]))
        else:
            if len(line) != len(self._proto_info):
                raise ValueError("the complete field set of two given line are inconsistent.")
            for index, (name, elements) in enumerate(line):
                self._check_slot(name, elements)
                if name != self._proto_info[index][0]:
                    raise ValueError(f"the field name of two given line are not match: "
                                     f"require<{self._proto_info[index][0]}>, get<{name}>.")
                for e in elements:
                    if self._proto_info[index][1] != "float":
                        if isinstance(e, float):
                            self._proto_info[index] = (name, "float")
                        elif not isinstance(e, int):
                            raise ValueError(f"the type of element{type(e)} must be in int or float")
                parts.append(" ".join([str(len(elements))] + [str(e) for e in elements]))
        return " ".join(parts) + "\n"
